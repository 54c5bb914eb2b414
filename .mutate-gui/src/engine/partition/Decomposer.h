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
#include <cstdint>
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
  CutReason cut = {};             // why it starts apart from the subgraph before it (its first section's reason)
};

struct FusionRuleList;

// The -o1 match search from one anchor node takes at most this many steps (by
// default; fusion.match_steps_per_anchor): a rule of many optional nodes
// otherwise backtracks exponentially (60 chained optional nodes hung -o1).
// With it every rule list matches in O(nodes x rules x budget).
constexpr int64_t kMatchStepsPerAnchor = int64_t{1} << 16;

struct DecomposeOptions {
  OptLevel level = OptLevel::O3;
  std::string o1RuleList = "default";     // -o1: built-in list name or YAML file
  const FusionRuleList* rules = nullptr;  // -o1: an already loaded list (used instead of o1RuleList)
  bool enableHypersection = false;        // -o3: compile hyperfunctions independently and dedupe
  // Fusion limits (--compiler-configs-file fusion.*):
  int64_t matchStepsPerAnchor = kMatchStepsPerAnchor;  // -o1: match search budget
  int maxSubgraphOps = 0;  // > 0: a subgraph of more operators is split into consecutive pieces of at most this many
};

// Splits every subgraph longer than `maxOps` into consecutive pieces; the k-th
// pieces of repeats share a hypersection (piece 0 keeps the subgraph's id).
void splitLongSubgraphs(std::vector<Subgraph>& subgraphs, int maxOps);

Expected<std::vector<Subgraph>> decompose(const ir::Graph& graph, const DecomposeOptions& options);

}  // namespace dfc::partition
