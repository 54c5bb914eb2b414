#pragma once
// The attention chain the frontend builds and the gradient chain autograd
// emits for it, found in a graph (no section knowledge: the runtime's fusion,
// runtime/AttentionFusion.h, and the cost model, arch/CostModel.h, add theirs):
//   forward:  s = batch_matmul(q, k, trans_b) [-> scale] [-> causal_mask] -> p = softmax
//             o = batch_matmul(p, v)
//   backward: dp = batch_matmul(do, v, trans_b); ds = softmax_grad(dp, p)
//             [-> causal_mask(fill 0)] [-> scale]; dq = batch_matmul(ds, k);
//             dk = batch_matmul(ds, q, trans_a); dv = batch_matmul(p, do, trans_a)
// Each score value (s, its scaled and masked forms, dp and the dS chain) feeds
// only the next op and leaves no step, so a fused kernel need never store it.
#include <memory>
#include <vector>

#include "ir/Graph.h"

namespace dfc::ir {

struct AttentionPattern {
  // forward nodes (scale, mask: kNoNode when absent), in execution order
  NodeId scores = kNoNode, scale = kNoNode, mask = kNoNode, softmax = kNoNode, context = kNoNode;
  ValueId q = kNoValue, k = kNoValue, v = kNoValue, probs = kNoValue, out = kNoValue;
  // backward nodes (all kNoNode for inference)
  NodeId dProbs = kNoNode, dSoftmax = kNoNode, dMask = kNoNode, dScale = kNoNode, dQuery = kNoNode,
         dKey = kNoNode, dValue = kNoNode;
  ValueId dOut = kNoValue;
  int64_t matrices = 0, queries = 0, keys = 0, dim = 0;
  float alpha = 1.0f;
  bool causal = false;

  bool hasBackward() const { return dProbs != kNoNode; }
  bool probsOnlyInForward(const std::vector<std::vector<NodeId>>& users) const {
    return users[static_cast<size_t>(probs)].size() == 1;
  }
  std::vector<NodeId> forwardNodes() const;   // execution order
  std::vector<NodeId> backwardNodes() const;  // an execution order
  size_t statsBytes() const { return static_cast<size_t>(matrices * queries) * sizeof(float); }
};

// The forward chain ending in `softmax` (any node: false unless it is a softmax
// heading such a chain). `users` is graph.computeUsers(); `leavesStep[v]`
// marks graph outputs and state-update sources.
bool matchAttentionForward(const Graph& graph, const Node& softmax, const std::vector<std::vector<NodeId>>& users,
                           const std::vector<bool>& leavesStep, AttentionPattern& p);
// The gradient chain of the forward in `p`: the probabilities read by exactly
// the softmax_grad and the dV batch_matmul besides the forward.
bool matchAttentionBackward(const Graph& graph, const std::vector<std::vector<NodeId>>& users,
                            const std::vector<bool>& leavesStep, AttentionPattern& p);

}  // namespace dfc::ir
