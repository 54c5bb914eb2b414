#pragma once
// -o1 fusion: matches a rule list against the graph and returns subgraphs.
// Rules are tried by priority (highest first), anchored at each node in
// graph order; a node is fused by at most one match; a match must be convex
// with respect to the groups already formed (no path leaves it and comes
// back, counting through other groups), so the groups can be scheduled as
// units; matches never mix forward, backward and optimizer nodes.
// Unmatched nodes become singleton subgraphs. The result is in a
// topological schedule order that keeps graph order where it can (stable).
#include <map>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/Decomposer.h"
#include "partition/FusionRules.h"

namespace dfc::partition {

struct FusionResult {
  std::vector<Subgraph> subgraphs;          // schedule order; `rule` set on fused ones
  std::map<std::string, int> matchCounts;   // rule name -> times matched
  int rejectedNonConvex = 0;                // matches dropped because they would form a cycle
  std::map<std::string, int> searchesCut;   // rule name -> anchors whose search ran out of steps
};

FusionResult fuseByRules(const ir::Graph& graph, const FusionRuleList& rules,
                         int64_t matchStepsPerAnchor = kMatchStepsPerAnchor);

}  // namespace dfc::partition
