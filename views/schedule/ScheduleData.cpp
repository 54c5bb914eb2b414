#include "schedule/ScheduleData.h"

#include <algorithm>
#include <set>

#include "arch/ArchSpec.h"
#include "pef/PlacedSections.h"

namespace dfc::views {

bool ScheduleData::hasMeasured() const {
  for (const auto& s : sections)
    if (s.measuredMeanUs) return true;
  return false;
}

std::vector<HypersectionRow> groupByHypersection(const ScheduleData& data) {
  std::vector<HypersectionRow> rows;
  std::map<QString, size_t> rowOf;
  std::map<QString, std::set<int>> sectionsOf;
  for (int id : data.schedule) {
    const ScheduleSection* s = data.section(id);
    if (!s) continue;
    auto [it, added] = rowOf.emplace(s->hypersection, rows.size());
    if (added) rows.push_back({s->hypersection, 0, 0, 0.0, std::nullopt, 0});
    HypersectionRow& row = rows[it->second];
    sectionsOf[s->hypersection].insert(id);
    ++row.callsPerStep;
    row.estPerStepUs += s->estLatencyUs;
    if (s->measuredMeanUs) row.measuredPerStepUs = row.measuredPerStepUs.value_or(0.0) + *s->measuredMeanUs;
    row.peakPcus = std::max(row.peakPcus, s->pcus);
  }
  for (HypersectionRow& row : rows) row.sections = static_cast<int>(sectionsOf[row.name].size());
  return rows;
}

const ScheduleSection* ScheduleData::section(int id) const {
  if (id >= 0 && static_cast<size_t>(id) < sections.size() && sections[static_cast<size_t>(id)].id == id)
    return &sections[static_cast<size_t>(id)];
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

ScheduleData buildScheduleData(const pef::Pef& pef, const MeasuredSections& measured) {
  ScheduleData data;
  data.title = QString::fromStdString(pef.meta.pefName.empty() ? pef.meta.model : pef.meta.pefName);
  data.arch = QString::fromStdString(pef.meta.arch);
  if (auto spec = arch::loadArch(pef.meta.arch.empty() ? "native" : pef.meta.arch)) {
    data.archPcus = spec->totalPcus();
    data.archPmus = spec->totalPmus();
  }
  const auto placed = pef::placedSections(pef.reportJson);
  for (const auto& s : pef.plan.sections) {
    ScheduleSection row;
    if (const auto it = placed.find(s.id); it != placed.end()) {
      row.placedPcus = static_cast<int>(it->second.pcus);
      row.placedPmus = static_cast<int>(it->second.pmus);
    }
    row.id = s.id;
    row.name = QString::fromStdString(s.name);
    row.type = QString::fromUtf8(ir::roleName(s.type).data(), static_cast<qsizetype>(ir::roleName(s.type).size()));
    row.hyperfunction = QString::fromStdString(s.hyperfunction);
    row.hypersectionId = s.hypersection;
    if (s.hypersection >= 0 && static_cast<size_t>(s.hypersection) < pef.plan.hypersections.size())
      row.hypersection = QString::fromStdString(pef.plan.hypersections[static_cast<size_t>(s.hypersection)].name);
    row.pcus = s.estimate.pcus;
    row.pmus = s.estimate.pmus;
    row.estLatencyUs = s.estimate.latencyUs;
    row.tflop = s.estimate.flop / 1e12;
    if (auto it = measured.find(s.id); it != measured.end() && it->second.second > 0) {
      row.calls = it->second.second;
      row.measuredMeanUs = it->second.first / static_cast<double>(it->second.second);
    }
    data.sections.push_back(std::move(row));
  }
  data.schedule = pef.plan.schedule;
  data.report = driver::sectionReportRows(pef, measured);
  return data;
}

QString sectionReportCsv(const ScheduleData& data) {
  return QString::fromStdString(driver::sectionReportCsv(data.report));
}

}  // namespace dfc::views
