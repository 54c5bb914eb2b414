#include "schedule/ScheduleData.h"

#include <QCoreApplication>
#include <algorithm>
#include <set>

#include "analysis/SectionBoundaries.h"
#include "arch/ArchSpec.h"
#include "driver/report/FusedAttentionReport.h"
#include "estimate/PefEstimate.h"
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

CostRanking rankByCost(const ScheduleData& data) {
  CostRanking ranking;
  std::vector<HypersectionRow> rows = groupByHypersection(data);
  ranking.measured = std::any_of(rows.begin(), rows.end(), [](const HypersectionRow& r) { return r.measuredPerStepUs; });
  // Measured before unmeasured, each by its time: host and chip times are never mixed in one order.
  std::stable_sort(rows.begin(), rows.end(), [&ranking](const HypersectionRow& a, const HypersectionRow& b) {
    if (ranking.measured && a.measuredPerStepUs.has_value() != b.measuredPerStepUs.has_value())
      return a.measuredPerStepUs.has_value();
    const double x = ranking.measured && a.measuredPerStepUs ? *a.measuredPerStepUs : a.estPerStepUs;
    const double y = ranking.measured && b.measuredPerStepUs ? *b.measuredPerStepUs : b.estPerStepUs;
    return x > y;
  });
  for (const HypersectionRow& r : rows)
    ranking.order.emplace_back(r.name, ranking.measured ? r.measuredPerStepUs.value_or(0.0) : r.estPerStepUs);
  return ranking;
}

QString CostRanking::basis() const {
  return measured ? QCoreApplication::translate("ScheduleData", "measured time per step")
                  : QCoreApplication::translate("ScheduleData", "estimated time per step");
}

const ScheduleSection* ScheduleData::section(int id) const {
  if (id >= 0 && static_cast<size_t>(id) < sections.size() && sections[static_cast<size_t>(id)].id == id)
    return &sections[static_cast<size_t>(id)];
  for (const auto& s : sections)
    if (s.id == id) return &s;
  return nullptr;
}

namespace {

// The value of `flag` on the PEF's compile command line, or `fallback`.
int compiledInt(const pef::PefMeta& meta, const std::string& flag, int fallback) {
  for (size_t i = 0; i + 1 < meta.args.size(); ++i) {
    if (meta.args[i] != flag) continue;
    try {
      return std::stoi(meta.args[i + 1]);
    } catch (const std::exception&) {
      return fallback;
    }
  }
  return fallback;
}

// Each fused attention named in the sections that run it (forward, and backward when fused too).
void addFusedKernels(ScheduleData& data, const pef::Pef& pef) {
  for (const driver::FusedAttention& a : driver::findFusedAttention(pef)) {
    const QString scope = QString::fromStdString(a.softmax).section(QLatin1Char('/'), 0, -2);
    auto add = [&](int section, const char* pass) {
      for (ScheduleSection& s : data.sections)
        if (s.id == section)
          s.fusedKernels << QCoreApplication::translate("ScheduleData", "attention %1 (%2, FlashAttention-style), %3x%4 tiles "
                                                                        "of queries x keys")
                                .arg(scope, QLatin1String(pass))
                                .arg(a.queryTile)
                                .arg(a.keyTile);
    };
    add(a.forwardSection, "forward");
    if (a.backwardSection >= 0) add(a.backwardSection, "backward");
  }
}

}  // namespace

ScheduleData buildScheduleData(const pef::Pef& pef, const MeasuredSections& measured) {
  ScheduleData data;
  data.title = QString::fromStdString(pef.meta.pefName.empty() ? pef.meta.model : pef.meta.pefName);
  data.arch = QString::fromStdString(pef.meta.arch);
  // The capacity the sections were mapped onto: --n-chips chips of --num-tiles tiles each.
  if (auto spec = arch::loadArchPreset(pef.meta.arch, "the PEF's arch")) {
    const int chips = compiledInt(pef.meta, "--n-chips", 1), tiles = compiledInt(pef.meta, "--num-tiles", 0);
    auto scaled = arch::scaleArch(*spec, chips, tiles, arch::kMaxInferenceChips);
    const arch::ArchSpec& capacity = scaled ? *scaled : *spec;
    data.archPcus = capacity.totalPcus();
    data.archPmus = capacity.totalPmus();
    if (capacity.chips > 1) data.arch = QString::number(capacity.chips) + QStringLiteral(" x ") + data.arch;
  }
  // One derivation of the per-section figures: the section report's rows
  // (what `dfc report` writes), turned into the screen's rows.
  data.report = driver::sectionReportRows(pef, measured);
  estimate::PefEstimateRequest request;
  if (auto e = estimate::estimatePef(pef, request)) data.estimate = std::move(*e);
  const auto placed = pef::placedSections(pef.reportJson);
  for (size_t i = 0; i < data.report.size(); ++i) {
    const driver::SectionReportRow& r = data.report[i];
    ScheduleSection row;
    row.id = r.id;
    row.name = QString::fromStdString(r.name);
    row.type = QString::fromStdString(r.type);
    row.hyperfunction = QString::fromStdString(r.hyperfunction);
    row.hypersection = QString::fromStdString(r.hypersection);
    row.hypersectionId = pef.plan.sections[i].hypersection;
    row.pcus = r.pcus;
    row.pmus = r.pmus;
    row.estLatencyUs = r.estLatencyUs;
    row.tflop = r.tflop;
    row.calls = r.calls;
    // The first section has no boundary before it.
    if (i > 0) {
      const partition::CutReason& cut = pef.plan.sections[i].cut;
      row.whyWithKind = QString::fromStdString(analysis::describeCut(cut));
      row.why = cut.detail.empty() ? row.whyWithKind : QString::fromStdString(cut.detail);
    }
    for (const auto& t : pef.plan.sections[i].tiling) row.tiledPasses = std::max(row.tiledPasses, t.passes);
    if (r.calls > 0) row.measuredMeanUs = r.measuredMeanUs;
    if (placed.count(r.id)) {  // placement figures are optional here, 0 in the CSV
      row.placedPcus = static_cast<int>(r.placedPcus);
      row.placedPmus = static_cast<int>(r.placedPmus);
    }
    data.sections.push_back(std::move(row));
  }
  data.schedule = pef.plan.schedule;
  addFusedKernels(data, pef);
  return data;
}

QString sectionReportCsv(const ScheduleData& data) {
  return QString::fromStdString(driver::sectionReportCsv(data.report));
}

}  // namespace dfc::views
