// Optimizer updates; outputs are separate buffers (the executor copies them
// over the parameters after the step).
#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

void sgdLoop(const float* __restrict p, const float* __restrict g, float lr, float wd, float* __restrict out,
             int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = p[i] - lr * (g[i] + wd * p[i]);
}

// PyTorch semantics: v' = momentum*v + (g + wd*p); p' = p - lr*v'.
void momentumLoop(const float* __restrict p, const float* __restrict g, const float* __restrict v, float lr,
                  float momentum, float wd, float* __restrict pOut, float* __restrict vOut, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float vn = momentum * v[i] + (g[i] + wd * p[i]);
    vOut[i] = vn;
    pOut[i] = p[i] - lr * vn;
  }
}

}  // namespace

Status runOptimizer(const ir::Node& node, Inputs in, Outputs out) {
  const int64_t n = in[0]->numElements();
  const bool momentum = node.op == ir::OpKind::MomentumUpdate;
  const ir::Tensor& lrTensor = *in[momentum ? 3 : 2];
  if (lrTensor.numElements() != 1 || lrTensor.dtype() != ir::DType::F32)
    return nodeError(node, "learning rate must be an f32 scalar");
  for (size_t i = 0; i + 1 < in.size(); ++i)
    if (in[i]->numElements() != n) return nodeError(node, "param, grad and state sizes differ");
  for (ir::Tensor* t : out)
    if (t->numElements() != n) return nodeError(node, "output size differs from the param");
  const float lr = *lrTensor.data<float>();
  const float wd = static_cast<float>(node.floatAttr("weight_decay", 0.0));
  if (!momentum) {
    sgdLoop(in[0]->data<float>(), in[1]->data<float>(), lr, wd, out[0]->data<float>(), n);
    return {};
  }
  momentumLoop(in[0]->data<float>(), in[1]->data<float>(), in[2]->data<float>(), lr,
               static_cast<float>(node.floatAttr("momentum", 0.0)), wd, out[0]->data<float>(),
               out[1]->data<float>(), n);
  return {};
}

}  // namespace dfc::runtime::kernels
