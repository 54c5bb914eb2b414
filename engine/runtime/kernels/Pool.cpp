// Max pooling (optional padding, which acts as -inf) and its gradient, which
// routes dy to the first maximum of each window; global average pooling and
// its gradient. Every plane (one image, one channel) is independent, so the
// planes split over the pool.
#include <cstring>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

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

// Without padding every window lies inside the plane: the same first maximum,
// found without bounds checks; the forward pass keeps a running maximum per
// output row (vectorizable) instead of searching each window.
inline int64_t argmaxInside(const float* plane, const Window& g, int64_t oy, int64_t ox) {
  const int64_t base = oy * g.sh * g.w + ox * g.sw;
  int64_t best = base;
  float bestValue = plane[base];
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t at = base + i * g.w + j;
      if (plane[at] > bestValue) {  // strict: ties keep the first
        bestValue = plane[at];
        best = at;
      }
    }
  return best;
}

void maxRowsInside(const float* __restrict plane, const Window& g, float* __restrict dst) {
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    float* __restrict d = dst + oy * g.ow;
    const float* top = plane + oy * g.sh * g.w;
    for (int64_t ox = 0; ox < g.ow; ++ox) d[ox] = top[ox * g.sw];
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* __restrict r = top + i * g.w + j;
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const float v = r[ox * g.sw];
          d[ox] = v > d[ox] ? v : d[ox];
        }
      }
  }
}

// maxpool2d (x) -> y, or maxpool2d_grad (dy, x) -> dx where overlapping windows accumulate.
class MaxPoolKernel final : public Kernel {
 public:
  MaxPoolKernel(const KernelArgs& a, bool grad, const Window& g)
      : Kernel(a.node), m_x(a.in[grad ? 1 : 0]), m_dy(grad ? a.in[0] : nullptr), m_y(a.out[0]), m_g(g) {}
  Status run(ExecContext& ctx) override {
    const Window& g = m_g;
    const int64_t inPlane = g.h * g.w, outPlane = g.oh * g.ow;
    return ctx.pool().parallelFor(0, g.n * g.c, grainOf(inPlane), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        const float* plane = m_x->data<float>() + p * inPlane;
        const bool inside = g.ph == 0 && g.pw == 0;
        if (!m_dy) {
          float* dst = m_y->data<float>() + p * outPlane;
          if (inside) {
            maxRowsInside(plane, g, dst);
            continue;
          }
          for (int64_t oy = 0; oy < g.oh; ++oy)
            for (int64_t ox = 0; ox < g.ow; ++ox) dst[oy * g.ow + ox] = plane[argmaxInWindow(plane, g, oy, ox)];
          continue;
        }
        const float* grad = m_dy->data<float>() + p * outPlane;
        float* dst = m_y->data<float>() + p * inPlane;
        std::memset(dst, 0, static_cast<size_t>(inPlane) * sizeof(float));
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox)
            dst[inside ? argmaxInside(plane, g, oy, ox) : argmaxInWindow(plane, g, oy, ox)] += grad[oy * g.ow + ox];
      }
    });
  }

 private:
  const ir::Tensor *m_x, *m_dy;
  ir::Tensor* m_y;
  Window m_g;
};

void fillLoop(float* __restrict y, float v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = v;
}

// global_avg_pool [N,C,H,W] -> [N,C], or its gradient spreading dy evenly over each plane.
class GlobalAvgPoolKernel final : public Kernel {
 public:
  GlobalAvgPoolKernel(const KernelArgs& a, bool grad, int64_t planes, int64_t plane)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_grad(grad), m_planes(planes), m_plane(plane) {}
  Status run(ExecContext& ctx) override {
    const float inv = m_plane ? 1.0f / static_cast<float>(m_plane) : 0.0f;
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, m_planes, grainOf(m_plane), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) {
        if (m_grad) fillLoop(y + p * m_plane, x[p] * inv, m_plane);
        else y[p] = sumLoop(x + p * m_plane, m_plane) * inv;
      }
    });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  bool m_grad;
  int64_t m_planes, m_plane;
};

Made maxPool(const KernelArgs& a, bool grad) {
  const ir::Shape& x = a.in[grad ? 1 : 0]->shape();
  const ir::Shape& y = (grad ? a.in[0] : a.out[0])->shape();
  if (x.size() != 4 || y.size() != 4) return a.fail("expects 4-D tensors");
  auto k = pairAttr(a.node, "kernel", 2), s = pairAttr(a.node, "stride", 2), p = pairAttr(a.node, "pad", 0);
  Window g{x[0], x[1], x[2], x[3], k[0], k[1], s[0], s[1], p[0], p[1], 0, 0};
  if (g.kh <= 0 || g.kw <= 0 || g.sh <= 0 || g.sw <= 0) return a.fail("kernel and stride must be positive");
  if (g.ph < 0 || g.pw < 0 || g.ph >= g.kh || g.pw >= g.kw) return a.fail("pad must be in [0, kernel)");
  g.oh = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  if (y[0] != x[0] || y[1] != x[1] || y[2] != g.oh || y[3] != g.ow)
    return a.fail("tensor shapes do not agree with the pooling geometry");
  if (grad && a.out[0]->shape() != x) return a.fail("dx must have the shape of x");
  return make<MaxPoolKernel>(a, grad, g);
}

Made globalAvgPool(const KernelArgs& a, bool grad) {
  if (!a.allF32()) return a.fail("expects f32 tensors");
  const ir::Shape& xs = (grad ? a.out[0] : a.in[0])->shape();
  if (xs.size() != 4) return a.fail("expects [N, C, H, W]");
  return make<GlobalAvgPoolKernel>(a, grad, xs[0] * xs[1], xs[2] * xs[3]);
}

}  // namespace

Made PoolKernels::MaxPool2d(const KernelArgs& a) { return maxPool(a, false); }
Made PoolKernels::MaxPool2dGrad(const KernelArgs& a) { return maxPool(a, true); }
Made PoolKernels::GlobalAvgPool(const KernelArgs& a) { return globalAvgPool(a, false); }
Made PoolKernels::GlobalAvgPoolGrad(const KernelArgs& a) { return globalAvgPool(a, true); }

}  // namespace dfc::runtime::kernels
