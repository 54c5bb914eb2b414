// Max pooling (optional padding, which acts as -inf) and its gradient, which
// routes dy to the first maximum of each window.
#include <cstring>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

Status poolGeometry(const ir::Node& node, const ir::Shape& x, const ir::Shape& y, Window& g) {
  if (x.size() != 4 || y.size() != 4) return nodeError(node, "expects 4-D tensors");
  auto k = pairAttr(node, "kernel", 2), s = pairAttr(node, "stride", 2), p = pairAttr(node, "pad", 0);
  g = Window{x[0], x[1], x[2], x[3], k[0], k[1], s[0], s[1], p[0], p[1], 0, 0};
  if (g.kh <= 0 || g.kw <= 0 || g.sh <= 0 || g.sw <= 0) return nodeError(node, "kernel and stride must be positive");
  if (g.ph < 0 || g.pw < 0 || g.ph >= g.kh || g.pw >= g.kw) return nodeError(node, "pad must be in [0, kernel)");
  g.oh = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  if (y[0] != x[0] || y[1] != x[1] || y[2] != g.oh || y[3] != g.ow)
    return nodeError(node, "tensor shapes do not agree with the pooling geometry");
  return {};
}

// Offset (within one channel plane) of the first maximum of window (oy, ox);
// cells in the padding are skipped. pad < kernel keeps every window non-empty.
inline int64_t argmaxInWindow(const float* plane, const Window& g, int64_t oy, int64_t ox) {
  const int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t best = -1;
  float bestValue = 0;
  for (int64_t i = 0; i < g.kh; ++i) {
    if (y0 + i < 0 || y0 + i >= g.h) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      if (x0 + j < 0 || x0 + j >= g.w) continue;
      const int64_t at = (y0 + i) * g.w + x0 + j;
      if (best < 0 || plane[at] > bestValue) {  // strict: ties keep the first
        bestValue = plane[at];
        best = at;
      }
    }
  }
  return best;
}

}  // namespace

Status runPool(const ir::Node& node, Inputs in, Outputs out) {
  Window g;
  if (node.op == ir::OpKind::MaxPool2d) {
    const ir::Tensor& x = *in[0];
    ir::Tensor& y = *out[0];
    DFC_TRY(poolGeometry(node, x.shape(), y.shape(), g));
    for (int64_t p = 0; p < g.n * g.c; ++p) {
      const float* plane = x.data<float>() + p * g.h * g.w;
      float* dst = y.data<float>() + p * g.oh * g.ow;
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) dst[oy * g.ow + ox] = plane[argmaxInWindow(plane, g, oy, ox)];
    }
    return {};
  }
  // MaxPool2dGrad (dy, x) -> dx; overlapping windows accumulate.
  const ir::Tensor &dy = *in[0], &x = *in[1];
  ir::Tensor& dx = *out[0];
  DFC_TRY(poolGeometry(node, x.shape(), dy.shape(), g));
  if (dx.shape() != x.shape()) return nodeError(node, "dx must have the shape of x");
  std::memset(dx.bytes(), 0, dx.byteSize());
  for (int64_t p = 0; p < g.n * g.c; ++p) {
    const float* plane = x.data<float>() + p * g.h * g.w;
    const float* grad = dy.data<float>() + p * g.oh * g.ow;
    float* dst = dx.data<float>() + p * g.h * g.w;
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) dst[argmaxInWindow(plane, g, oy, ox)] += grad[oy * g.ow + ox];
  }
  return {};
}

}  // namespace dfc::runtime::kernels
