#pragma once
// The numbers a side-by-side comparison starts with, computed from two
// compiles (and optionally their runs) by a plain function so it is testable.
// Runs of different lengths compare per step (and per sample): a step is a
// distinct `step` arg of the section calls on the whole-run row (tid 0).
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
  size_t steps = 0;          // distinct steps among those calls (0: the trace names none)
  int64_t batchSize = 0;     // samples per step (the PEF's); 0 unknown
  double measuredPerStepUs() const { return steps ? measuredUs / static_cast<double>(steps) : 0.0; }
  double measuredPerSampleUs() const {
    return batchSize > 0 ? measuredPerStepUs() / static_cast<double>(batchSize) : 0.0;
  }
};

// One hypersection (else section name) matched across the two sides: calls
// and time per step on each side; a side without it has zero calls.
struct CompareRow {
  QString key;
  int calls[2] = {0, 0};           // per step, from the schedule
  double estUs[2] = {0, 0};        // estimated, per step
  double measuredUs[2] = {0, 0};   // measured, per step (0 without a run)
  bool measured = false;           // both sides were run: the delta is measured
  double deltaUs() const { return measured ? measuredUs[1] - measuredUs[0] : estUs[1] - estUs[0]; }
};

struct CompareSummary {
  CompareSide left;
  CompareSide right;
  // right / left ratios (0 when the left side is 0)
  double estimatedRatio = 0;
  double measuredRatio = 0;  // of the measured time per step
  std::vector<CompareRow> rows;  // matched hypersections, biggest change first
  QStringList lines() const;  // human-readable, one difference per line
};

CompareSide summarizeSide(const pef::Pef& pef, const profile::CompactTrace* trace);
CompareSummary compareRuns(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace);

}  // namespace dfc::views
