#pragma once
// Decomposition: cuts the graph into subgraphs and maps them into sections.
//   -o0: one operator per section.
//   -o3: the whole graph as one scope; the mapper packs consecutive operators of
//        one role (forward/backward/optimizer) into a section until the chip's
//        PCUs or PMUs would overflow.
//   -o1: fusion by rule lists (not implemented yet).
#include "arch/CostModel.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::partition {

struct DecomposeOptions {
  OptLevel level = OptLevel::O3;
};

Expected<Plan> decompose(const ir::Graph& graph, const arch::CostModel& cost, const DecomposeOptions& options);

}  // namespace dfc::partition
