#include "driver/report/SectionReport.h"

#include <cstdio>

#include "pef/PlacedSections.h"

namespace dfc::driver {

const std::string& sectionReportHeader() {
  static const std::string kHeader =
      "section_id,name,type,hyperfunction,hypersection,pcus,pmus,est_latency_us,tflop,calls,measured_mean_us,"
      "placed_pcus,placed_pmus,placed_hops,min_latency_us,max_latency_us";
  return kHeader;
}

std::vector<SectionReportRow> sectionReportRows(const pef::Pef& pef, const MeasuredSections& measured) {
  const auto placed = pef::placedSections(pef.reportJson);
  std::vector<SectionReportRow> rows;
  for (const auto& s : pef.plan.sections) {
    SectionReportRow r;
    r.id = s.id;
    r.name = s.name;
    r.type = std::string(ir::roleName(s.type));
    r.hyperfunction = s.hyperfunction;
    if (s.hypersection >= 0 && static_cast<size_t>(s.hypersection) < pef.plan.hypersections.size())
      r.hypersection = pef.plan.hypersections[static_cast<size_t>(s.hypersection)].name;
    r.pcus = s.estimate.pcus;
    r.pmus = s.estimate.pmus;
    r.estLatencyUs = s.estimate.latencyUs;
    r.tflop = s.estimate.flop / 1e12;
    if (auto it = measured.find(s.id); it != measured.end() && it->second.second > 0) {
      r.calls = it->second.second;
      r.measuredMeanUs = it->second.first / static_cast<double>(it->second.second);
    }
    if (auto it = placed.find(s.id); it != placed.end()) {
      r.placedPcus = it->second.pcus;
      r.placedPmus = it->second.pmus;
      r.placedHops = it->second.hops;
      r.minLatencyUs = it->second.minUs;
      r.maxLatencyUs = it->second.maxUs;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string sectionReportCsv(const std::vector<SectionReportRow>& rows) {
  std::string csv = sectionReportHeader() + "\n";
  for (const SectionReportRow& r : rows) {
    // A section never run has no measurement: its calls and mean stay blank, not 0.
    char measured[64] = ",";
    if (r.calls > 0) std::snprintf(measured, sizeof measured, "%lld,%.4f", r.calls, r.measuredMeanUs);
    char numbers[320];
    std::snprintf(numbers, sizeof numbers, "%d,%d,%.4f,%.9f,%s,%lld,%lld,%lld,%.4f,%.4f\n", r.pcus, r.pmus, r.estLatencyUs,
                  r.tflop, measured, r.placedPcus, r.placedPmus, r.placedHops, r.minLatencyUs, r.maxLatencyUs);
    csv += std::to_string(r.id) + "," + r.name + "," + r.type + "," + r.hyperfunction + "," + r.hypersection + "," +
           numbers;
  }
  return csv;
}

}  // namespace dfc::driver
