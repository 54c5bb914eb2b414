#pragma once
// Hypersections: subgraphs that are structural repeats of one another (a
// transformer layer, the same GEMM + bias + GELU in every block) share one id,
// so they are compiled once and their instances reuse the result.
// The canonical form covers op kinds, attributes, roles, the types of every
// input and output, whether a result leaves the subgraph, and the internal
// wiring by position; it ignores names, scopes and weight data.
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/Decomposer.h"

namespace dfc::partition {

// Canonical text of the subgraph `nodes` (in their order). `users` from Graph::computeUsers.
std::string canonicalForm(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes,
                          const std::vector<std::vector<ir::NodeId>>& users);

struct HypersectionSummary {
  int unique = 0;     // distinct hypersection ids assigned
  int instances = 0;  // subgraphs that got one
};

// Gives every subgraph a hypersection id: equal canonical hash, confirmed by
// comparing the full canonical forms (no collisions), means equal id.
// Ids are dense, in order of first appearance.
HypersectionSummary assignHypersections(const ir::Graph& graph, std::vector<Subgraph>& subgraphs);

// The same with the bucket hash given: tests pass one that makes every form
// collide, to hold the promise that a collision never merges two subgraphs.
using FormHash = size_t (*)(const std::string& form);
HypersectionSummary assignHypersections(const ir::Graph& graph, std::vector<Subgraph>& subgraphs, FormHash hash);

}  // namespace dfc::partition
