#pragma once
// Mapping: each subgraph becomes one or more sections that fit the chip's
// (scaled) PCUs and PMUs; the schedule calls them in subgraph order.
#include <vector>

#include "arch/CostModel.h"
#include "partition/Decomposer.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::mapping {

struct MappingOptions {
  // Fraction of the chip's PCUs/PMUs a section may use, per section type.
  double forwardScale = 1.0;
  double backwardScale = 1.0;
  double optimizerScale = 1.0;
};

Expected<partition::Plan> mapSections(const ir::Graph& graph, const std::vector<partition::Subgraph>& subgraphs,
                                      const arch::CostModel& cost, partition::OptLevel level,
                                      const MappingOptions& options = {});

}  // namespace dfc::mapping
