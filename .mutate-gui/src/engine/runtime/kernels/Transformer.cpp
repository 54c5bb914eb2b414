// Transformer kernels: softmax_grad, GELU (GPT-2 tanh form), causal_mask and
// embedding lookup, with their gradients. Row and element loops split over
// the pool; embedding_grad's scatter-add stays on one thread.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/FastMath.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/RowReduce.h"

namespace dfc::runtime::kernels {
namespace {

constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

DFC_WIDE_CLONES void geluLoop(const float* __restrict x, const float*, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + fastTanh(kGeluC * (v + kGeluA * v * v * v)));
  }
}

DFC_WIDE_CLONES void geluGradLoop(const float* __restrict dy, const float* __restrict x, float* __restrict dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = fastTanh(kGeluC * (v + kGeluA * v * v * v));
    const float dt = (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * dt);
  }
}

DFC_WIDE_CLONES void softmaxGradRow(const float* __restrict dy, const float* __restrict y, float* __restrict dx, int64_t n) {
  const float d = static_cast<float>(rowDotLanes<double>(dy, y, n));
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - d);
}

class SoftmaxGradKernel final : public Kernel {
 public:
  SoftmaxGradKernel(const KernelArgs& a, int64_t cols) : Kernel(a.node), m_dy(a.in[0]), m_y(a.in[1]), m_dx(a.out[0]), m_cols(cols) {}
  Status run(ExecContext& ctx) override {
    const int64_t cols = m_cols, rows = cols ? m_dx->numElements() / cols : 0;
    const float *dy = m_dy->data<float>(), *y = m_y->data<float>();
    float* dx = m_dx->data<float>();
    return ctx.pool().parallelFor(0, rows, grainOf(cols), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) softmaxGradRow(dy + r * cols, y + r * cols, dx + r * cols, cols);
    });
  }

 private:
  const ir::Tensor *m_dy, *m_y;
  ir::Tensor* m_dx;
  int64_t m_cols;
};

// x[..., T, T] with positions j > i set to `fill`, one T x T matrix per task.
class CausalMaskKernel final : public Kernel {
 public:
  CausalMaskKernel(const KernelArgs& a, int64_t t, float fill) : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_t(t), m_fill(fill) {}
  Status run(ExecContext& ctx) override {
    const int64_t t = m_t, matrices = t ? m_y->numElements() / (t * t) : 0;
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, matrices, grainOf(t * t), [&](int64_t lo, int64_t hi) {
      std::memcpy(y + lo * t * t, x + lo * t * t, static_cast<size_t>((hi - lo) * t * t) * sizeof(float));
      for (int64_t m = lo; m < hi; ++m)
        for (int64_t i = 0; i < t; ++i) {
          float* row = y + (m * t + i) * t;
          for (int64_t j = i + 1; j < t; ++j) row[j] = m_fill;
        }
    });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  int64_t m_t;
  float m_fill;
};

// embedding (table f32[V,D], ids) -> rows of the table; embedding_grad (dy, ids) -> dtable,
// summing the rows of dy that share an id (on one thread: ids repeat).
class EmbeddingKernel final : public Kernel {
 public:
  EmbeddingKernel(const KernelArgs& a, bool grad, int64_t vocab, int64_t dim)
      : Kernel(a.node), m_src(a.in[0]), m_ids(a.in[1]), m_y(a.out[0]), m_grad(grad), m_vocab(vocab), m_dim(dim) {}
  Status run(ExecContext& ctx) override {
    const int64_t* p = m_ids->data<int64_t>();
    const int64_t count = m_ids->numElements(), dim = m_dim;
    if (std::string bad = firstOutOfRange(p, count, m_vocab, "id", "position"); !bad.empty()) return fail(bad);
    const float* src = m_src->data<float>();
    float* y = m_y->data<float>();
    if (!m_grad)
      return ctx.pool().parallelFor(0, count, grainOf(dim), [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i)
          std::memcpy(y + i * dim, src + p[i] * dim, static_cast<size_t>(dim) * sizeof(float));
      });
    std::memset(m_y->bytes(), 0, m_y->byteSize());
    for (int64_t i = 0; i < count; ++i) {
      float* __restrict dst = y + p[i] * dim;
      const float* __restrict row = src + i * dim;
      for (int64_t d = 0; d < dim; ++d) dst[d] += row[d];
    }
    return {};
  }

 private:
  const ir::Tensor *m_src, *m_ids;
  ir::Tensor* m_y;
  bool m_grad;
  int64_t m_vocab, m_dim;
};

int64_t lastDim(const ir::Tensor& t) { return t.shape().empty() ? 1 : t.shape().back(); }

}  // namespace

Made TransformerKernels::Gelu(const KernelArgs& a) { return make<StreamKernel>(a, geluLoop); }
Made TransformerKernels::GeluGrad(const KernelArgs& a) { return make<StreamKernel>(a, geluGradLoop); }
Made TransformerKernels::SoftmaxGrad(const KernelArgs& a) { return make<SoftmaxGradKernel>(a, lastDim(*a.out[0])); }

Made TransformerKernels::CausalMask(const KernelArgs& a) {
  const ir::Shape& s = a.out[0]->shape();
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) return a.fail("needs [..., T, T]");
  return make<CausalMaskKernel>(a, s.back(), static_cast<float>(a.node.floatAttr("fill", -1e9)));
}

Made TransformerKernels::Embedding(const KernelArgs& a) {
  const ir::Tensor &table = *a.in[0], &ids = *a.in[1];
  if (ids.dtype() != ir::DType::I64 || table.shape().size() != 2) return a.fail("expects f32[V,D], i64 ids");
  return make<EmbeddingKernel>(a, false, table.shape()[0], table.shape()[1]);
}

Made TransformerKernels::EmbeddingGrad(const KernelArgs& a) {
  const ir::Tensor& y = *a.out[0];
  if (a.in[1]->dtype() != ir::DType::I64 || y.shape().size() != 2) return a.fail("expects i64 ids");
  return make<EmbeddingKernel>(a, true, y.shape()[0], y.shape()[1]);
}

}  // namespace dfc::runtime::kernels
