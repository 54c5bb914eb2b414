#pragma once
// The numbers a side-by-side comparison starts with, computed from two
// compiles (and optionally their runs) by a plain function so it is testable.
#include <QString>
#include <vector>

#include "pef/Pef.h"
#include "profile/CompactTrace.h"

namespace dfc::views {

struct CompareSide {
  QString label;          // "lenet -o0 (sn30)"
  int sections = 0;
  int hypersections = 0;
  ir::PerRole<int> sectionsByRole{};
  double estimatedUs = 0;    // sum of estimated latency over one step's schedule
  int maxPcus = 0;           // the largest section's estimate
  int maxPmus = 0;
  bool hasRun = false;
  double measuredUs = 0;     // sum of top-level (depth 0, tid 0) slice durations in the trace
  size_t measuredSlices = 0;
};

struct CompareSummary {
  CompareSide left;
  CompareSide right;
  // right / left ratios (0 when the left side is 0)
  double estimatedRatio = 0;
  double measuredRatio = 0;
  QStringList lines() const;  // human-readable, one difference per line
};

CompareSide summarizeSide(const pef::Pef& pef, const profile::CompactTrace* trace);
CompareSummary compareRuns(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace);

}  // namespace dfc::views
