#pragma once
// Bounds the fan-in of every kernel unit to what its switch's links carry
// (arch/FanIn.h: unitFanInBound). A unit fed by more than `bound` distinct
// units gets a combine tree in front of it, levels of at most `bound` inputs
// per tree unit:
//   partial results of one reduction (the replicas of a reducing op writing
//   its output buffer) are added up by Reduce PCUs (one add stage);
//   anything else (GEMM tiles into an output buffer, resident slices into a
//   PCU, buffers into a layout op's buffer) is gathered by Staging PMUs.
// Each source keeps its other edges; only its edge into the hot unit moves to
// its tree unit. Tree units are numbered right before their sink, so edges
// still go from lower to higher ids (the placer's and router's critical path
// rely on it). Deterministic: sources are grouped in id order.
#include <vector>

#include "lowering/KernelGraph.h"

namespace dfc::lowering {

// Distinct units feeding each op / fed by each op.
std::vector<int> fanIn(const KernelGraph& kg);
std::vector<int> fanOut(const KernelGraph& kg);

// `partial[op]` (missing: false): what flows into op are partial sums.
// Returns the tree units added.
int boundFanIn(KernelGraph& kg, int bound, const std::vector<bool>& partial);

}  // namespace dfc::lowering
