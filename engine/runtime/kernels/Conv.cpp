// Convolution and its gradients: im2col / col2im around cblas_sgemm, one
// batch element at a time so the column buffer stays small.
#include <cblas.h>

#include <cstring>
#include <vector>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

// Column buffer reused across calls: no allocation per step once warm.
std::vector<float>& scratch(size_t elements) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < elements) buffer.resize(elements);
  return buffer;
}

// col[(c*kh + i)*kw + j][oy*ow + ox] = x[c][oy*sh - ph + i][ox*sw - pw + j] (0 outside).
void im2col(const float* x, const Window& g, float* col) {
  const int64_t cols = g.oh * g.ow;
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        float* row = col + ((c * g.kh + i) * g.kw + j) * cols;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.ph + i;
          float* dst = row + oy * g.ow;
          if (iy < 0 || iy >= g.h) {
            std::memset(dst, 0, static_cast<size_t>(g.ow) * sizeof(float));
            continue;
          }
          const float* src = x + (c * g.h + iy) * g.w;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = ox * g.sw - g.pw + j;
            dst[ox] = (ix >= 0 && ix < g.w) ? src[ix] : 0.0f;
          }
        }
      }
}

// The adjoint of im2col: accumulates columns back into the image (dx must be zeroed).
void col2im(const float* col, const Window& g, float* dx) {
  const int64_t cols = g.oh * g.ow;
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* row = col + ((c * g.kh + i) * g.kw + j) * cols;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.ph + i;
          if (iy < 0 || iy >= g.h) continue;
          float* dst = dx + (c * g.h + iy) * g.w;
          const float* src = row + oy * g.ow;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = ox * g.sw - g.pw + j;
            if (ix >= 0 && ix < g.w) dst[ix] += src[ox];
          }
        }
      }
}

// Geometry from the image shape x [n,c,h,w], weight shape [o,c,kh,kw] and the node's attributes.
Status geometry(const ir::Node& node, const ir::Shape& x, const ir::Shape& w, const ir::Shape& y, Window& g) {
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return nodeError(node, "expects 4-D tensors");
  auto s = pairAttr(node, "stride", 1), p = pairAttr(node, "pad", 0);
  g = Window{x[0], x[1], x[2], x[3], w[2], w[3], s[0], s[1], p[0], p[1], 0, 0};
  if (g.sh <= 0 || g.sw <= 0) return nodeError(node, "stride must be positive");
  g.oh = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  if (w[1] != x[1] || y[0] != x[0] || y[1] != w[0] || y[2] != g.oh || y[3] != g.ow)
    return nodeError(node, "tensor shapes do not agree with the convolution geometry");
  return {};
}

}  // namespace

Status runConv(const ir::Node& node, Inputs in, Outputs out) {
  Window g;
  const int64_t ck = [&] {
    const ir::Shape& w = node.op == OpKind::Conv2dGradWeight ? out[0]->shape() : in[1]->shape();
    return w.size() == 4 ? w[1] * w[2] * w[3] : 0;
  }();
  switch (node.op) {
    case OpKind::Conv2d: {
      const ir::Tensor &x = *in[0], &w = *in[1];
      ir::Tensor& y = *out[0];
      DFC_TRY(geometry(node, x.shape(), w.shape(), y.shape(), g));
      const int64_t o = w.shape()[0], cols = g.oh * g.ow;
      float* col = scratch(static_cast<size_t>(ck * cols)).data();
      for (int64_t b = 0; b < g.n; ++b) {
        im2col(x.data<float>() + b * g.c * g.h * g.w, g, col);
        // y[b] [o, cols] = w [o, ck] @ col [ck, cols]
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(o), static_cast<int>(cols),
                    static_cast<int>(ck), 1.0f, w.data<float>(), static_cast<int>(ck), col,
                    static_cast<int>(cols), 0.0f, y.data<float>() + b * o * cols, static_cast<int>(cols));
      }
      return {};
    }
    case OpKind::Conv2dGradInput: {
      const ir::Tensor &dy = *in[0], &w = *in[1];
      ir::Tensor& dx = *out[0];
      DFC_TRY(geometry(node, dx.shape(), w.shape(), dy.shape(), g));
      const int64_t o = w.shape()[0], cols = g.oh * g.ow;
      float* col = scratch(static_cast<size_t>(ck * cols)).data();
      std::memset(dx.bytes(), 0, dx.byteSize());
      for (int64_t b = 0; b < g.n; ++b) {
        // col [ck, cols] = w^T [ck, o] @ dy[b] [o, cols]
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(ck), static_cast<int>(cols),
                    static_cast<int>(o), 1.0f, w.data<float>(), static_cast<int>(ck),
                    dy.data<float>() + b * o * cols, static_cast<int>(cols), 0.0f, col, static_cast<int>(cols));
        col2im(col, g, dx.data<float>() + b * g.c * g.h * g.w);
      }
      return {};
    }
    case OpKind::Conv2dGradWeight: {
      const ir::Tensor &dy = *in[0], &x = *in[1];
      ir::Tensor& dw = *out[0];
      DFC_TRY(geometry(node, x.shape(), dw.shape(), dy.shape(), g));
      const int64_t o = dw.shape()[0], cols = g.oh * g.ow;
      float* col = scratch(static_cast<size_t>(ck * cols)).data();
      if (g.n == 0) std::memset(dw.bytes(), 0, dw.byteSize());
      for (int64_t b = 0; b < g.n; ++b) {
        im2col(x.data<float>() + b * g.c * g.h * g.w, g, col);
        // dw [o, ck] (+)= dy[b] [o, cols] @ col^T [cols, ck]
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(o), static_cast<int>(ck),
                    static_cast<int>(cols), 1.0f, dy.data<float>() + b * o * cols, static_cast<int>(cols), col,
                    static_cast<int>(cols), b == 0 ? 0.0f : 1.0f, dw.data<float>(), static_cast<int>(ck));
      }
      return {};
    }
    default: return nodeError(node, "not a convolution op");
  }
}

}  // namespace dfc::runtime::kernels
