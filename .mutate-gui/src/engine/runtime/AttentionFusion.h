#pragma once
// Fused attention at PEF load: a runtime pattern match (ir/AttentionPattern.h)
// over the ops the frontend and autograd emit, so the IR, the golden files and
// the sections stay what they are and -o0 (one op per section) never fuses.
// The forward runs as one FlashAttention kernel when one section holds the
// whole chain and the probabilities are read by nothing else (inference) or
// only by a backward chain that one section holds whole (training); the
// backward then runs as one kernel too. Scores, probabilities and their
// gradients get no memory; the forward keeps each query row's log-sum-exp
// for the backward (AttentionPattern::statsBytes).
#include <memory>
#include <vector>

#include "ir/AttentionPattern.h"

namespace dfc::runtime {

using ir::AttentionPattern;
using AttentionPatternPtr = std::shared_ptr<const AttentionPattern>;

// Every fusable attention of the graph. `sectionOf[n]` is node n's section
// (-1: none); `users` is graph.computeUsers(); `leavesStep[v]` marks graph
// outputs and state-update sources.
std::vector<AttentionPatternPtr> findAttention(const ir::Graph& graph, const std::vector<int>& sectionOf,
                                               const std::vector<std::vector<ir::NodeId>>& users,
                                               const std::vector<bool>& leavesStep);

}  // namespace dfc::runtime
