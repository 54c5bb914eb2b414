#pragma once
// Lowering: a section's math ops -> a KernelGraph, following the cost model's
// resource figures (arch/CostModel.h) so that estimate and placement agree.
//   GEMM with P PCUs:   PMU(A tiles) -> PCU gemm x P -> PMU(out); the reused
//                       operand's resident PMUs each feed the PCUs of their slice.
//   elementwise:        PMU(in) -> PCU stage group -> ... -> PMU(out), replicated.
//   layout ops:         a PMU with a different address pattern (reshape: none).
// A value produced inside the section flows from its producer's output buffer
// straight into the consumer's PCUs: no second buffer, no DDR round trip.
// Last, every unit fed by more nets than its switch's links carry gets a
// combine tree in front of it (FanInBound.h; the cost model counts its units).
#include <span>
#include <vector>

#include "arch/CostModel.h"
#include "ir/Graph.h"
#include "lowering/KernelGraph.h"
#include "partition/Plan.h"

namespace dfc::lowering {

// `pcuCap`: the section's PCU budget (0: none), as given to sectionEstimate.
// `maxFanIn`: most nets a unit may be fed by; -1: the arch's
// (arch::unitFanInBound, which the cost model counts), 0: no combine trees
// (the lowering as it was before them, kept to measure what they change).
// `tiling`: the section's tiled operators; each is lowered as one pass (one tile resident).
KernelGraph lowerSection(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, const arch::CostModel& cost,
                         int pcuCap = 0, int maxFanIn = -1, std::span<const partition::OperatorTiling> tiling = {});

}  // namespace dfc::lowering
