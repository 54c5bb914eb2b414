#pragma once
// Decomposition: cuts the graph into subgraphs, each compiled on its own.
//   -o0: one operator per subgraph.
//   -o1: operators fused into subgraphs by a fusion rule list (not implemented yet).
//   -o3: the whole graph as one scope (one subgraph per role: forward,
//        backward, optimizer), cut into sections later by the mapper.
// Subgraphs that are repeats of one another share a hypersection id.
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::partition {

struct Subgraph {
  std::vector<ir::NodeId> nodes;  // topological order, contiguous in the schedule
  std::string hyperfunction;      // scope of its first node ("" = top level)
  std::string rule;               // -o1: the fusion rule that formed it
  int hypersection = -1;          // repeats share an id (-1: unique, the mapper assigns one)
};

struct DecomposeOptions {
  OptLevel level = OptLevel::O3;
};

Expected<std::vector<Subgraph>> decompose(const ir::Graph& graph, const DecomposeOptions& options);

}  // namespace dfc::partition
