#pragma once
// The spatial tiling plan a PEF records (--num-spatial-batches), as the lines
// `dfc inspect` prints: bands, rows and halo per layer, and the trade-off.
#include <string>
#include <vector>

#include "arch/CostModel.h"
#include "passes/SpatialTiling.h"

namespace dfc::driver {

// The chip's view of the trade-off, op by op: the prefix's summed estimated
// latency and the most PMUs one of its ops holds, in `untiled` and `tiled`.
void addChipEstimates(passes::SpatialPlan& plan, const ir::Graph& untiled, const ir::Graph& tiled,
                      const arch::CostModel& cost);

// No lines for "" (an untiled PEF); one line saying so for JSON it cannot read.
std::vector<std::string> describeSpatialTiling(const std::string& json);

}  // namespace dfc::driver
