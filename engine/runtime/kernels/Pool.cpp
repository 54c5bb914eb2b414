// Max pooling (optional padding, which acts as -inf) and its gradient, which
// routes dy to the first maximum of each window; global average pooling and
// its gradient. Every plane (one image, one channel) is independent, so the
// planes split over the pool.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "runtime/kernels/Epilogue.h"  // DFC_VECTOR_CLONES
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/MaxPoolPlanes.h"
#include "runtime/kernels/Strided.h"

namespace dfc::runtime::kernels {
namespace {

// The output columns ox whose window column j lands inside the plane (the
// rest fall in the padding, which acts as -inf): [lo, hi).
struct ColumnRange {
  int64_t lo, hi;
};
inline ColumnRange insideColumns(const Window& g, int64_t j) {
  const int64_t shift = j - g.pw;  // plane column = ox * sw + shift
  const int64_t lo = shift >= 0 ? 0 : (-shift + g.sw - 1) / g.sw;
  if (g.w - 1 - shift < 0) return {0, 0};  // a plane narrower than the window's reach
  return {lo, std::min(g.ow, (g.w - 1 - shift) / g.sw + 1)};
}

// max[i] = src[i] > max[i] ? src[i] : max[i], i < n: a window cell taken only when strictly greater.
DFC_VECTOR_CLONES void takeGreater(float* __restrict max, const float* __restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) max[i] = src[i] > max[i] ? src[i] : max[i];
}

// Output row oy's window maxima, a window row and column at a time across the
// whole output row (the compare loop vectorizes) instead of window by window:
// max[ox] starts at the window's first cell inside the plane and takes a cell
// only when it is strictly greater, so each window sees its cells in the same
// order as a window-by-window search (ties keep the first; a NaN first cell
// stays, a later NaN never wins). Columns [ox0, ox1) only; max starts at ox0.
// A strided pool reads each window row through its column phases (phase b
// holds the row's columns b, b + sw, ...; `phases` has room for w + sw
// floats), so every window column is a contiguous run.
void maxRow(const float* __restrict plane, const Window& g, int64_t oy, int64_t ox0, int64_t ox1, float* __restrict max,
            float* __restrict phases) {
  const int64_t y0 = oy * g.sh - g.ph;
  const int64_t i0 = std::max<int64_t>(0, -y0), i1 = std::min(g.kh, g.h - y0);  // window rows inside (pad < kernel)
  for (int64_t ox = ox0; ox < ox1; ++ox)
    max[ox - ox0] = plane[(y0 + i0) * g.w + std::max<int64_t>(0, ox * g.sw - g.pw)];
  const int64_t pitch = (g.w + g.sw - 1) / g.sw;  // floats of one column phase
  for (int64_t i = i0; i < i1; ++i) {
    const float* row = plane + (y0 + i) * g.w;
    for (int64_t b = 0; b < g.sw && g.sw > 1; ++b)
      gatherStrided(phases + b * pitch, row + b, (g.w - b + g.sw - 1) / g.sw, g.sw);
    for (int64_t j = 0; j < g.kw; ++j) {
      const ColumnRange r = insideColumns(g, j);
      const int64_t lo = std::max(r.lo, ox0), hi = std::min(r.hi, ox1);
      if (lo >= hi) continue;
      // Output column ox reads row column ox * sw + t = (ox + q) * sw + b.
      const int64_t t = j - g.pw, b = ((t % g.sw) + g.sw) % g.sw, q = (t - b) / g.sw;
      const float* src = g.sw == 1 ? row + t : phases + b * pitch + q;
      takeGreater(max + (lo - ox0), src + lo, hi - lo);
    }
  }
}

// The plane offset of window (oy, ox)'s first maximum, given its maximum m
// from maxRow: the first cell inside the plane equal to m (the strictly-greater
// search keeps exactly that one), or, when m is a NaN, which equals nothing,
// the first cell (only a NaN first cell stays the maximum). Looking for a known
// value mispredicts about once a window; tracking the running maximum
// mispredicted at each new one.
int64_t firstMaximum(const float* __restrict plane, const Window& g, int64_t oy, int64_t ox, float m) {
  const int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  const int64_t i0 = std::max<int64_t>(0, -y0), i1 = std::min(g.kh, g.h - y0);
  const int64_t j0 = std::max<int64_t>(0, -x0), j1 = std::min(g.kw, g.w - x0);
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j)
      if (plane[(y0 + i) * g.w + x0 + j] == m) return (y0 + i) * g.w + x0 + j;
  return (y0 + i0) * g.w + x0 + j0;
}

// This thread's room for a row's column phases, kept between calls.
float* phaseBuffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  return lineAligned(buffer, floats);
}

// Output row oy of one channels-last image: each window cell is a run of c
// floats, in the reference's window order, its first in-bounds cell the
// start (so a NaN there is kept, as the reference keeps it).
void maxPoolRowChannelsLast(const float* x, const Window& g, int64_t oy, float* y) {
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    float* out = y + ox * g.c;
    bool first = true;
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      const int64_t iy = oy * g.sh - g.ph + ky;
      for (int64_t kx = 0; kx < g.kw && iy >= 0 && iy < g.h; ++kx) {
        const int64_t ix = ox * g.sw - g.pw + kx;
        if (ix < 0 || ix >= g.w) continue;
        const float* cell = x + (iy * g.w + ix) * g.c;
        if (first)
          std::memcpy(out, cell, static_cast<size_t>(g.c) * sizeof(float));
        else
          takeGreater(out, cell, g.c);
        first = false;
      }
    }
  }
}

// Windows that tile the plane (stride = kernel, no padding: LeNet's 2x2):
// each cell is in one window at most, so dx is dy at the window's first
// maximum (0 + dy, as the reference's accumulation into zeros gives: -0 -> +0)
// and zero elsewhere. One search a window, where the general path recomputes
// each row's maxima and then looks for them.
bool windowsTile(const Window& g) { return g.sh == g.kh && g.sw == g.kw && g.ph == 0 && g.pw == 0; }

// One output row of 2 x 2 windows, without branches (the maximum's place in
// random data is a coin toss for a branch): the first maximum in window order
// (a, b on the top row, c, d below) gets the gradient, the other three cells 0.
DFC_VECTOR_CLONES void maxPoolGradRow2x2(const float* __restrict top, const float* __restrict bottom,
                                         const float* __restrict dy, int64_t ow, float* __restrict dxTop,
                                         float* __restrict dxBottom) {
  for (int64_t ox = 0; ox < ow; ++ox) {
    const float a = top[2 * ox], b = top[2 * ox + 1], c = bottom[2 * ox], d = bottom[2 * ox + 1];
    const bool pickB = b > a;
    const float ab = pickB ? b : a;
    const bool pickC = c > ab;
    const float abc = pickC ? c : ab;
    const bool pickD = d > abc;
    const int at = pickD ? 3 : pickC ? 2 : pickB ? 1 : 0;
    const float v = 0.0f + dy[ox];
    dxTop[2 * ox] = at == 0 ? v : 0.0f;
    dxTop[2 * ox + 1] = at == 1 ? v : 0.0f;
    dxBottom[2 * ox] = at == 2 ? v : 0.0f;
    dxBottom[2 * ox + 1] = at == 3 ? v : 0.0f;
  }
}

void maxPoolGradTiled(const float* __restrict plane, const float* __restrict dy, const Window& g,
                      float* __restrict dx) {
  std::memset(dx, 0, static_cast<size_t>(g.h * g.w) * sizeof(float));
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    if (g.kh == 2 && g.kw == 2) {
      const int64_t row = 2 * oy * g.w;
      maxPoolGradRow2x2(plane + row, plane + row + g.w, dy + oy * g.ow, g.ow, dx + row, dx + row + g.w);
      continue;
    }
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const int64_t corner = oy * g.kh * g.w + ox * g.kw;
      int64_t best = corner;
      for (int64_t ky = 0; ky < g.kh; ++ky)
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          const int64_t at = corner + ky * g.w + kx;
          best = plane[at] > plane[best] ? at : best;
        }
      dx[best] = 0.0f + dy[oy * g.ow + ox];
    }
  }
}

// maxpool2d (x) -> y, or maxpool2d_grad (dy, x) -> dx where overlapping windows accumulate.
class MaxPoolKernel final : public Kernel {
 public:
  static constexpr int64_t kSegment = 256;  // output columns the gradient searches at once

  MaxPoolKernel(const KernelArgs& a, bool grad, const Window& g)
      : Kernel(a.node), m_x(a.in[grad ? 1 : 0]), m_dy(grad ? a.in[0] : nullptr), m_y(a.out[0]), m_g(g) {}
  // The forward reads and writes channels-last where the plan holds its
  // input and output so, both or neither (ConvTensors::tied): a ResNet's
  // stem conv and first block around it.
  bool canHoldBlocked(ConvAlgoRequest, int) const override { return !m_dy; }
  void holdBlocked(bool x, bool, bool y) override { m_held = {x, y}; }

  Status run(ExecContext& ctx) override {
    if (m_held.first != m_held.second) return internalError("maxpool2d held channels-last on one side only");
    if (m_held.first) return runChannelsLast(ctx);
    const Window& g = m_g;
    const int64_t inPlane = g.h * g.w, outPlane = g.oh * g.ow;
    return ctx.pool().parallelFor(0, g.n * g.c, grainOf(inPlane), [&](int64_t lo, int64_t hi) {
      float* phases = phaseBuffer(std::max(g.w + g.sw, m_dy ? 0 : maxPoolPlaneScratch(g)));
      if (!m_dy) maxPoolPrepare(g, phases);
      for (int64_t p = lo; p < hi; ++p) {
        const float* plane = m_x->data<float>() + p * inPlane;
        if (!m_dy) {
          float* dst = m_y->data<float>() + p * outPlane;
          if (maxPoolPlane(plane, g, dst, phases)) continue;
          for (int64_t oy = 0; oy < g.oh; ++oy) maxRow(plane, g, oy, 0, g.ow, dst + oy * g.ow, phases);
          maxPoolPrepare(g, phases);  // maxRow wrote over the padding
          continue;
        }
        const float* grad = m_dy->data<float>() + p * outPlane;
        float* dst = m_y->data<float>() + p * inPlane;
        if (windowsTile(g)) {
          maxPoolGradTiled(plane, grad, g, dst);
          continue;
        }
        std::memset(dst, 0, static_cast<size_t>(inPlane) * sizeof(float));
        std::array<float, kSegment> max;  // a segment of an output row at a time, on the stack
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox0 = 0; ox0 < g.ow; ox0 += kSegment) {
            const int64_t ox1 = std::min(g.ow, ox0 + kSegment);
            maxRow(plane, g, oy, ox0, ox1, max.data(), phases);
            for (int64_t ox = ox0; ox < ox1; ++ox)
              dst[firstMaximum(plane, g, oy, ox, max[ox - ox0])] += grad[oy * g.ow + ox];
          }
      }
    });
  }

 private:
  Status runChannelsLast(ExecContext& ctx) {
    const Window& g = m_g;
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, g.n * g.oh, grainOf(g.ow * g.c * g.kh * g.kw), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t image = r / g.oh;
        maxPoolRowChannelsLast(x + image * g.h * g.w * g.c, g, r % g.oh, y + r * g.ow * g.c);
      }
    });
  }

  const ir::Tensor *m_x, *m_dy;
  ir::Tensor* m_y;
  Window m_g;
  std::pair<bool, bool> m_held{false, false};  // x and y channels-last (holdBlocked)
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
