// Elementwise kernels: plain loops over restrict pointers so GCC vectorizes
// them (the runtime builds with -O3 -fno-trapping-math), split over the pool
// in chunks of kElementGrain elements so small tensors stay on one core.
#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

void addLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void subLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
}
void mulLoop(const float* __restrict a, const float* __restrict b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}
void reluGradLoop(const float* __restrict dy, const float* __restrict x, float* __restrict dx, int64_t n) {
  // dy is loaded unconditionally so the select if-converts and vectorizes.
  for (int64_t i = 0; i < n; ++i) {
    const float d = dy[i];
    dx[i] = x[i] > 0.0f ? d : 0.0f;
  }
}
void scaleLoop(const float* __restrict x, float alpha, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}
// A ternary, not fmaxf: without fast-math fmaxf becomes a libm call.
void reluLoop(const float* __restrict x, float, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
// y = x + b: bias_add's inner loop over one channel plane.
void addScalarLoop(const float* __restrict x, float b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b;
}

using ScalarLoop = void (*)(const float*, float, float*, int64_t);

// y = loop(x, alpha) elementwise (scale, relu).
class ScalarKernel final : public TileKernel {
 public:
  ScalarKernel(const KernelArgs& a, ScalarLoop loop, float alpha)
      : TileKernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_loop(loop), m_alpha(alpha) {}
  Status run(ExecContext& ctx) override {
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain,
                                  [&](int64_t lo, int64_t hi) { m_loop(x + lo, m_alpha, y + lo, hi - lo); });
  }
  void runTile(const float* const* in, float* out, int64_t n) const override { m_loop(in[0], m_alpha, out, n); }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  ScalarLoop m_loop;
  float m_alpha;
};

// y[n,c,...] = x[n,c,...] + b[c], one channel plane at a time; when the
// channels are the last axis (a matmul's [rows, c] output), one row at a
// time instead, since a plane of one element made a call per element.
class BiasAddKernel final : public Kernel {
 public:
  BiasAddKernel(const KernelArgs& a, int64_t planes, int64_t channels, int64_t inner)
      : Kernel(a.node), m_x(a.in[0]), m_b(a.in[1]), m_y(a.out[0]), m_planes(planes), m_channels(channels), m_inner(inner) {}
  Status run(ExecContext& ctx) override {
    const float *x = m_x->data<float>(), *b = m_b->data<float>();
    float* y = m_y->data<float>();
    if (m_inner == 1) {
      const int64_t rows = m_planes / m_channels, c = m_channels;
      return ctx.pool().parallelFor(0, rows, grainOf(c), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) addLoop(x + r * c, b, y + r * c, c);
      });
    }
    return ctx.pool().parallelFor(0, m_planes, grainOf(m_inner), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) addScalarLoop(x + p * m_inner, b[p % m_channels], y + p * m_inner, m_inner);
    });
  }

 private:
  const ir::Tensor *m_x, *m_b;
  ir::Tensor* m_y;
  int64_t m_planes, m_channels, m_inner;
};

// Checks shared by the family: f32 tensors, the first input as large as the output.
Status checkSizes(const KernelArgs& a, bool binary) {
  if (!a.allF32()) return a.fail("expects f32 tensors");
  const int64_t n = a.out[0]->numElements();
  if (a.in[0]->numElements() != n) return a.fail("input and output sizes differ");
  if (binary && a.in[1]->numElements() != n) return a.fail("input sizes differ");
  return {};
}

Made binary(const KernelArgs& a, StreamLoop loop) {
  DFC_TRY(checkSizes(a, true));
  return make<StreamKernel>(a, loop);
}

Made scalar(const KernelArgs& a, ScalarLoop loop, float alpha) {
  DFC_TRY(checkSizes(a, false));
  return make<ScalarKernel>(a, loop, alpha);
}

}  // namespace

Made ElementwiseKernels::Add(const KernelArgs& a) { return binary(a, addLoop); }
Made ElementwiseKernels::Sub(const KernelArgs& a) { return binary(a, subLoop); }
Made ElementwiseKernels::Mul(const KernelArgs& a) { return binary(a, mulLoop); }
Made ElementwiseKernels::ReluGrad(const KernelArgs& a) { return binary(a, reluGradLoop); }
Made ElementwiseKernels::Relu(const KernelArgs& a) { return scalar(a, reluLoop, 0.0f); }
Made ElementwiseKernels::Scale(const KernelArgs& a) {
  return scalar(a, scaleLoop, static_cast<float>(a.node.floatAttr("alpha", 1.0)));
}

Made ElementwiseKernels::BiasAdd(const KernelArgs& a) {
  DFC_TRY(checkSizes(a, false));
  const ir::Shape& s = a.in[0]->shape();
  if (s.size() < 2 || a.in[1]->numElements() != s[1]) return a.fail("bias does not match axis 1");
  const int64_t planes = s[0] * s[1];
  const int64_t inner = planes == 0 ? 0 : a.out[0]->numElements() / planes;
  return make<BiasAddKernel>(a, planes, s[1], inner);
}

}  // namespace dfc::runtime::kernels
