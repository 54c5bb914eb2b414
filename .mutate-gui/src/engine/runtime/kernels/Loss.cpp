// Softmax over the last axis and the classification loss with its gradient,
// all numerically stable (the row maximum is subtracted before exp). Rows
// split over the pool; the mean loss sums its rows on one thread.
#include <cmath>
#include <string>

#include "runtime/kernels/FastMath.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/RowReduce.h"

namespace dfc::runtime::kernels {
namespace {

// y = exp(x - max) / sum; returns log(sum) + max, the row's log-sum-exp. Each
// pass vectorizes (RowReduce.h, fastExp); the sum stays in double.
DFC_WIDE_CLONES float softmaxRow(const float* __restrict x, float* __restrict y, int64_t n) {
  const float mx = rowMaxLanes(x, n, x[0]);
  for (int64_t i = 0; i < n; ++i) y[i] = fastExp(x[i] - mx);
  const double sum = rowSumLanes<double>(y, n);
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  return static_cast<float>(std::log(sum)) + mx;
}

class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(const KernelArgs& a, int64_t cols) : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_cols(cols) {}
  Status run(ExecContext& ctx) override {
    const int64_t cols = m_cols, rows = cols ? m_x->numElements() / cols : 0;
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, rows, grainOf(cols), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) softmaxRow(x + r * cols, y + r * cols, cols);
    });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  int64_t m_cols;
};

// (logits [N,C], labels i64 [N]) -> the mean loss, or dlogits = (softmax - onehot) / N.
class CrossEntropyKernel final : public Kernel {
 public:
  CrossEntropyKernel(const KernelArgs& a, bool grad) : Kernel(a.node), m_x(a.in[0]), m_labels(a.in[1]), m_y(a.out[0]), m_grad(grad) {}
  Status run(ExecContext& ctx) override {
    const int64_t rows = m_x->shape()[0], cols = m_x->shape()[1];
    const int64_t* lab = m_labels->data<int64_t>();
    if (std::string bad = firstOutOfRange(lab, rows, cols, "label", "row"); !bad.empty()) return fail(bad);
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    if (m_grad) {
      const float invN = rows ? 1.0f / static_cast<float>(rows) : 0.0f;
      return ctx.pool().parallelFor(0, rows, grainOf(cols), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          float* dst = y + r * cols;
          softmaxRow(x + r * cols, dst, cols);
          dst[lab[r]] -= 1.0f;
          for (int64_t c = 0; c < cols; ++c) dst[c] *= invN;
        }
      });
    }
    double total = 0;  // mean over rows of logsumexp - logit[label]
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * cols;
      float mx = row[0];
      for (int64_t c = 1; c < cols; ++c) mx = row[c] > mx ? row[c] : mx;
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - mx);
      total += std::log(sum) + mx - row[lab[r]];
    }
    *y = rows ? static_cast<float>(total / static_cast<double>(rows)) : 0.0f;
    return {};
  }

 private:
  const ir::Tensor *m_x, *m_labels;
  ir::Tensor* m_y;
  bool m_grad;
};

Made crossEntropy(const KernelArgs& a, bool grad) {
  const ir::Tensor &x = *a.in[0], &labels = *a.in[1], &y = *a.out[0];
  if (x.dtype() != ir::DType::F32) return a.fail("expects f32 logits");
  if (x.shape().size() != 2 || labels.dtype() != ir::DType::I64 || labels.shape().size() != 1 ||
      labels.shape()[0] != x.shape()[0])
    return a.fail("expects logits [N,C] and i64 labels [N]");
  if (grad && y.shape() != x.shape()) return a.fail("dlogits must have the shape of logits");
  if (!grad && y.numElements() != 1) return a.fail("loss must be a scalar");
  return make<CrossEntropyKernel>(a, grad);
}

}  // namespace

Made LossKernels::Softmax(const KernelArgs& a) {
  const ir::Tensor &x = *a.in[0], &y = *a.out[0];
  if (x.dtype() != ir::DType::F32) return a.fail("expects f32 logits");
  if (y.numElements() != x.numElements()) return a.fail("output size differs");
  return make<SoftmaxKernel>(a, x.shape().empty() ? 1 : x.shape().back());
}

Made LossKernels::SoftmaxCrossEntropy(const KernelArgs& a) { return crossEntropy(a, false); }
Made LossKernels::SoftmaxCrossEntropyGrad(const KernelArgs& a) { return crossEntropy(a, true); }

}  // namespace dfc::runtime::kernels
