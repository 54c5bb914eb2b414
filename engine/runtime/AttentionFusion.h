#pragma once
// Fused attention at PEF load: a runtime pattern match over the ops the
// frontend and autograd emit, so the IR, the golden files and the sections
// stay what they are and -o0 (one op per section) never fuses.
//   forward:  s = batch_matmul(q, k, trans_b) [-> scale] [-> causal_mask] -> p = softmax
//             o = batch_matmul(p, v)
//   backward: dp = batch_matmul(do, v, trans_b); ds = softmax_grad(dp, p)
//             [-> causal_mask(fill 0)] [-> scale]; dq = batch_matmul(ds, k);
//             dk = batch_matmul(ds, q, trans_a); dv = batch_matmul(p, do, trans_a)
// The forward runs as one FlashAttention kernel when its section holds the
// whole chain and the probabilities p are read by nothing else (inference) or
// only by a backward chain that one section holds whole (training); the
// backward then runs as one kernel too. Scores, probabilities and their
// gradients get no memory; the forward keeps each query row's log-sum-exp
// for the backward (AttentionPattern::statsBytes).
#include <memory>
#include <vector>

#include "ir/Graph.h"

namespace dfc::runtime {

struct AttentionPattern {
  // forward nodes (scale, mask: kNoNode when absent), in execution order
  ir::NodeId scores = ir::kNoNode, scale = ir::kNoNode, mask = ir::kNoNode, softmax = ir::kNoNode,
             context = ir::kNoNode;
  ir::ValueId q = ir::kNoValue, k = ir::kNoValue, v = ir::kNoValue, probs = ir::kNoValue, out = ir::kNoValue;
  // backward nodes (all kNoNode for inference)
  ir::NodeId dProbs = ir::kNoNode, dSoftmax = ir::kNoNode, dMask = ir::kNoNode, dScale = ir::kNoNode,
             dQuery = ir::kNoNode, dKey = ir::kNoNode, dValue = ir::kNoNode;
  ir::ValueId dOut = ir::kNoValue;
  int64_t matrices = 0, queries = 0, keys = 0, dim = 0;
  float alpha = 1.0f;
  bool causal = false;

  bool hasBackward() const { return dProbs != ir::kNoNode; }
  std::vector<ir::NodeId> forwardNodes() const;   // execution order
  std::vector<ir::NodeId> backwardNodes() const;  // the graph's order of the matched nodes is kept by the caller
  size_t statsBytes() const { return static_cast<size_t>(matrices * queries) * sizeof(float); }
};

using AttentionPatternPtr = std::shared_ptr<const AttentionPattern>;

// Every fusable attention of the graph. `sectionOf[n]` is node n's section
// (-1: none); `users` is graph.computeUsers(); `leavesStep[v]` marks graph
// outputs and state-update sources.
std::vector<AttentionPatternPtr> findAttention(const ir::Graph& graph, const std::vector<int>& sectionOf,
                                               const std::vector<std::vector<ir::NodeId>>& users,
                                               const std::vector<bool>& leavesStep);

}  // namespace dfc::runtime
