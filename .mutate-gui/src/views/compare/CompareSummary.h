#pragma once
// The numbers a side-by-side comparison starts with, computed from two
// compiles (and optionally their runs) by a plain function so it is testable.
// Runs of different lengths compare per step (and per sample): a step is a
// distinct `step` arg of the section calls on the whole-run row (tid 0).
#include <QString>
#include <map>
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
// Hypersections match by what they compute, not by id: a recompile numbers
// them anew (hs34_matmul on the left is hs39_matmul on the right), so the key
// is the name without its "hsN_" id, the k-th such kernel in call order "#k".
struct CompareRow {
  QString key;                     // the match key: "matmul", "matmul #2"
  QString names[2];                // each side's own hypersection name ("" where it has none)
  QString label() const;           // "hs34_matmul", or "hs34_matmul ↔ hs39_matmul" when renumbered
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
  std::map<QString, QString> keyOf[2];  // per side: hypersection name -> match key
  QStringList lines() const;  // human-readable, one difference per line
};

CompareSide summarizeSide(const pef::Pef& pef, const profile::CompactTrace* trace);
CompareSummary compareRuns(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace);

}  // namespace dfc::views
