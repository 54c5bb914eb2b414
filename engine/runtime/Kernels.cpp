#include "runtime/Kernels.h"

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime {

using ir::OpKind;

Status runKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                 std::span<ir::Tensor* const> outputs) {
  const ir::OpInfo& info = ir::opInfo(node.op);
  if ((info.numInputs >= 0 && inputs.size() != static_cast<size_t>(info.numInputs)) ||
      (info.numOutputs >= 0 && outputs.size() != static_cast<size_t>(info.numOutputs)))
    return kernels::nodeError(node, "wrong number of inputs or outputs");
  for (const ir::Tensor* t : inputs)
    if (!t || t->empty()) return kernels::nodeError(node, "input tensor has no storage");
  for (const ir::Tensor* t : outputs)
    if (!t || t->empty()) return kernels::nodeError(node, "output tensor has no storage");

  switch (node.op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Scale:
    case OpKind::BiasAdd:
    case OpKind::Relu:
    case OpKind::ReluGrad:
      return kernels::runElementwise(node, inputs, outputs);
    case OpKind::Reshape:
    case OpKind::ReduceSum:
      return kernels::runShape(node, inputs, outputs);
    case OpKind::MatMul:
      return kernels::runMatMul(node, inputs, outputs);
    case OpKind::Linear:  // a composite: the chip (and so the runtime) has no kernel for it
      return kernels::nodeError(node, "linear must be decomposed before execution (pass decompose-composites)");
    case OpKind::Conv2d:
    case OpKind::Conv2dGradInput:
    case OpKind::Conv2dGradWeight:
      return kernels::runConv(node, inputs, outputs);
    case OpKind::MaxPool2d:
    case OpKind::MaxPool2dGrad:
      return kernels::runPool(node, inputs, outputs);
    case OpKind::Softmax:
    case OpKind::SoftmaxCrossEntropy:
    case OpKind::SoftmaxCrossEntropyGrad:
      return kernels::runSoftmax(node, inputs, outputs);
    case OpKind::SgdUpdate:
    case OpKind::MomentumUpdate:
      return kernels::runOptimizer(node, inputs, outputs);
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::SliceGrad:
    case OpKind::BatchMatMul:
      return kernels::runLayout(node, inputs, outputs);
    case OpKind::SoftmaxGrad:
    case OpKind::Gelu:
    case OpKind::GeluGrad:
    case OpKind::CausalMask:
    case OpKind::LayerNorm:
    case OpKind::LayerNormGrad:
    case OpKind::Embedding:
    case OpKind::EmbeddingGrad:
      return kernels::runTransformer(node, inputs, outputs);
    case OpKind::GlobalAvgPool:
    case OpKind::GlobalAvgPoolGrad:
    case OpKind::BatchNorm:
    case OpKind::BatchNormGrad:
    case OpKind::AdamUpdate:
      return kernels::runVision(node, inputs, outputs);
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Where:
    case OpKind::Cast:
    case OpKind::Reduce:
    case OpKind::Expand:
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::StridedSlice:
    case OpKind::Conv:
    case OpKind::Pool:
      return kernels::runGeneral(node, inputs, outputs);
  }
  return kernels::nodeError(node, "no kernel for this op");
}

}  // namespace dfc::runtime
