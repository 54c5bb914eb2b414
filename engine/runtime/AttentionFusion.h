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

// A fused attention as the runtime runs it: the match, and the layout ops
// around it that the kernel absorbs by reading and writing with strides
// (kernels::MatrixLayout), so they never run (AttentionLayouts.h):
// - packedQkv: q, k, v are reshape(slice(transpose(x))) of one fused
//   projection x [B, T, 3, H, D] (TransformerBlocks' fusedQkvAttention);
// - headsLastOut: o feeds only transpose(o, {0, 2, 1, 3}), [B, T, H, D];
// - headsLastGrad: dO is transpose(dY, {0, 2, 1, 3}) of such a dY;
// - packedGrad: dq, dk, dv feed only slice_grads summed and transposed back
//   to x's layout: the kernel writes them there.
struct AttentionPlan : AttentionPattern {
  int64_t heads = 1;  // H of the [B, T, (3,) H, D] layouts: matrix m is batch m / H, head m % H
  ir::ValueId packedQkv = ir::kNoValue, headsLastOut = ir::kNoValue, headsLastGrad = ir::kNoValue,
              packedGrad = ir::kNoValue;
  std::vector<ir::NodeId> inputNodes;  // transpose, slices, reshapes before the forward (packedQkv)
  ir::NodeId outTranspose = ir::kNoNode, gradTranspose = ir::kNoNode;
  std::vector<ir::NodeId> gradNodes;  // reshapes, slice_grads, adds, transpose after the backward (packedGrad)

  std::vector<ir::NodeId> forwardGroup() const;  // absorbed nodes with the forward's, in execution order
  std::vector<ir::NodeId> backwardGroup() const;
  std::vector<ir::ValueId> forwardResults() const;  // what the forward group writes to memory
  std::vector<ir::ValueId> backwardResults(const ir::Graph& g) const;
  std::vector<ir::ValueId> backwardReads() const;  // read besides the backward group's members' inputs
};
using AttentionPatternPtr = std::shared_ptr<const AttentionPlan>;

// Every fusable attention of the graph, each with the layout ops it absorbs. `sectionOf[n]` is node n's section
// (-1: none); `users` is graph.computeUsers(); `leavesStep[v]` marks graph
// outputs and state-update sources.
std::vector<AttentionPatternPtr> findAttention(const ir::Graph& graph, const std::vector<int>& sectionOf,
                                               const std::vector<std::vector<ir::NodeId>>& users,
                                               const std::vector<bool>& leavesStep);

}  // namespace dfc::runtime
