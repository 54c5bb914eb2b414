#pragma once
// section_report.csv: one row per section of a PEF with the cost model's
// estimates (layer 1), the placement's figures (layer 3) and the measured
// times of a run. `dfc report` and dfstudio's Export both write it through
// here, so the two files have the same columns.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pef/Pef.h"

namespace dfc::driver {

// Section id -> (sum of measured microseconds, number of calls) of one run.
using MeasuredSections = std::map<int, std::pair<double, long long>>;

struct SectionReportRow {
  int id = 0;
  std::string name, type, hyperfunction, hypersection;
  int pcus = 0, pmus = 0;  // the cost model's estimate
  double estLatencyUs = 0;
  double tflop = 0;
  long long calls = 0;        // measured calls (0: never run)
  double measuredMeanUs = 0;  // 0 when never run
  long long placedPcus = 0, placedPmus = 0, placedHops = 0;  // 0 without placement
  double minLatencyUs = 0, maxLatencyUs = 0;
};

// The header line, without its newline.
const std::string& sectionReportHeader();
std::vector<SectionReportRow> sectionReportRows(const pef::Pef& pef, const MeasuredSections& measured);
// Header and rows, one line each, '\n'-terminated; a section never run leaves calls and measured_mean_us blank.
std::string sectionReportCsv(const std::vector<SectionReportRow>& rows);

}  // namespace dfc::driver
