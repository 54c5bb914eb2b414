#pragma once
// Decomposition: cuts the graph into subgraphs, each compiled on its own.
//   -o0: one operator per subgraph; repeated operators share a hypersection id.
//   -o1: operators fused into subgraphs by a fusion rule list (FusionRules.h);
//        every subgraph gets a hypersection id (repeats share it).
//   -o3: the whole graph as one scope (one subgraph per role: forward,
//        backward, optimizer), cut into sections later by the mapper.
//        With enableHypersection: one subgraph per top-level hyperfunction
//        instance ("h.3", "conv1") per role, repeats sharing a hypersection.
// Subgraphs that are repeats of one another share a hypersection id (Hypersections.h).
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

struct FusionRuleList;

struct DecomposeOptions {
  OptLevel level = OptLevel::O3;
  std::string o1RuleList = "default";     // -o1: built-in list name or YAML file
  const FusionRuleList* rules = nullptr;  // -o1: an already loaded list (used instead of o1RuleList)
  bool enableHypersection = false;        // -o3: compile hyperfunctions independently and dedupe
};

Expected<std::vector<Subgraph>> decompose(const ir::Graph& graph, const DecomposeOptions& options);

}  // namespace dfc::partition
