#pragma once
// The CPU kernels the runtime dispatches to, one per op in Ops.def. GEMM and
// convolution go through kernels/Sgemm.h (oneDNN). Inputs and outputs are already
// allocated with the shapes the IR gives.
#include <span>

#include "ir/Graph.h"
#include "runtime/Kernel.h"
#include "support/Error.h"

namespace dfc::runtime {

// Decodes the node's attributes and checks its tensors' shapes once, and binds
// the kernel to the tensors: `node` and the Tensor objects must outlive it
// (their buffers must stay put). Errors name the node.
Expected<KernelPtr> prepareKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                                  std::span<ir::Tensor* const> outputs);

// prepareKernel and one run on the calling thread (constant folding, the
// ONNX importer, tests).
Status runKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                 std::span<ir::Tensor* const> outputs);

}  // namespace dfc::runtime
