#pragma once
// The CPU kernels the runtime dispatches to, one per op in Ops.def. GEMM and
// convolution go through CBLAS (OpenBLAS). Inputs and outputs are already
// allocated with the shapes the IR gives.
#include <span>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime {

Status runKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                 std::span<ir::Tensor* const> outputs);

}  // namespace dfc::runtime
