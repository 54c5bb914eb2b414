#pragma once
// How a section's nodes run on the host: alone, or fused. Decided once from
// the graph (ops and types) when the runtime loads a PEF, before the memory
// plan, because a fused group reads all its inputs and writes all its outputs
// in one step of the schedule:
// - BiasEpilogue: a 2-D matmul or a conv2d / conv whose output feeds only a
//   bias_add; the GEMM starts from the bias, oneDNN adds it on the output tile
//   (one pass over the output instead of two).
// - ConvEpilogue: a conv2d / conv (then its bias_add) whose result feeds
//   only a relu, clip, silu or hard_swish, or only an add of another value
//   of its shape (a residual), then maybe one of those: the convolution
//   applies them on its output tile (oneDNN post-ops, the GEMM's panels),
//   run at the place of the group's last node.
// - Chain: consecutive elementwise nodes of one size, run tile by tile (a few
//   KB per tile, kept in L1) instead of op by op over whole tensors; a value
//   used only inside the chain never leaves its tile.
// - AttentionForward / AttentionBackward: a whole attention chain (forward or
//   its gradient) as one FlashAttention kernel (AttentionFusion.h, StepFusion.h).
// - SideBySide: consecutive independent GEMMs (a linear layer's dX and dW)
//   run at once, one per pool thread, as a section's units run at once on
//   the chip, instead of each split over all threads in turn.
// Fusion happens inside a section only, as on the chip: -o0 (one op per
// section) fuses nothing, -o3 fuses what its sections hold.
#include <vector>

#include "ir/Graph.h"
#include "runtime/AttentionFusion.h"

namespace dfc::runtime {

enum class FusionKind { Single, BiasEpilogue, ConvEpilogue, Chain, AttentionForward, AttentionBackward, SideBySide };

// Values one chain keeps in its tile buffer (the rest of its intermediates go to memory).
constexpr int kMaxTileValues = 8;

struct FusionGroup {
  FusionKind kind = FusionKind::Single;
  std::vector<ir::NodeId> nodes;     // in execution order (BiasEpilogue: the GEMM or conv, then the bias_add;
                                     // ConvEpilogue: the conv, its bias_add if any, the residual add
                                     // if any, the activation)
  std::vector<ir::ValueId> inTile;   // Chain: values that live only in the tile buffer (never in memory)
                                     // Attention*: the scores, probabilities and their gradients (never in memory)
  std::vector<ir::ValueId> extraReads;  // read besides the members' inputs (the backward reads the forward's output)
  AttentionPatternPtr attention;        // Attention*: the match, shared by a forward and its backward
  std::vector<FusionGroup> parts;       // SideBySide: the GEMM groups (Single or BiasEpilogue) run at once
};

struct FusionStats {
  int biasEpilogues = 0;
  int convEpilogues = 0;  // conv (+ bias) + activation groups
  int chains = 0;
  int chainedNodes = 0;
  int tileValues = 0;  // intermediates that never reach memory
  int attentionForward = 0;   // fused attention kernels
  int attentionBackward = 0;
  int attentionLayoutOps = 0;  // transposes, slices, reshapes, slice_grads, adds a fused attention absorbs
  int sideBySide = 0;  // pairs of GEMMs run at once
  int oneDnnJoins = 0;     // 1x1 convolutions moved onto oneDNN to keep its tensors channels-last
  int blockedTensors = 0;  // tensors kept channels-last between oneDNN convolutions (BlockedLayouts.h)
  int blocked16Tensors = 0;  // of those, kept nChw16c between oneDNN Winograd convolutions
};

// The groups of one section's nodes (given in section order), covering each
// node once. `users` is graph.computeUsers(); `leavesStep[v]` marks graph
// outputs and state-update sources. With `enabled` false every node is Single.
std::vector<FusionGroup> planSectionFusion(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes,
                                           const std::vector<std::vector<ir::NodeId>>& users,
                                           const std::vector<bool>& leavesStep, bool enabled);

void countFusion(const std::vector<FusionGroup>& groups, FusionStats& stats);

}  // namespace dfc::runtime
