#pragma once
// The layout ops a fused attention absorbs (AttentionFusion.h: AttentionPlan):
// the transposes, slices and reshapes that take q, k, v out of a fused
// projection and put o back heads-last, and their gradients (slice_grads, the
// adds that sum them, the transposes back). Each is taken only when every
// value it leaves is read by nothing but the attention and its own chain, and
// it sits in the attention's section; the kernel then reads and writes those
// layouts with strides, and the ops never run.
#include <vector>

#include "runtime/AttentionFusion.h"

namespace dfc::runtime {

// Fills p's layout fields (left unset where a chain does not match).
void absorbLayouts(const ir::Graph& graph, const std::vector<int>& sectionOf,
                   const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep,
                   AttentionPlan& p);

}  // namespace dfc::runtime
