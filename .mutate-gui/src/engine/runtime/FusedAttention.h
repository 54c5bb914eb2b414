#pragma once
// The kernel of a fused attention group (SectionFusion.h: AttentionForward,
// AttentionBackward), bound to the executor's tensors: the forward writes o
// and the row statistics, the backward reads them with q, k, v and dO and
// writes dq, dk, dv (kernels/FlashAttention.h).
#include <vector>

#include "runtime/Kernel.h"
#include "runtime/SectionFusion.h"

namespace dfc::runtime {

// `storage` is by ValueId; `stats` holds the pattern's [matrices, queries] log-sum-exp.
Expected<KernelPtr> makeAttentionKernel(const ir::Graph& graph, const FusionGroup& group,
                                        std::vector<ir::Tensor>& storage, ir::Tensor& stats);

}  // namespace dfc::runtime
