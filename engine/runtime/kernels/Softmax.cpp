// Softmax over the last axis and the classification loss with its gradient,
// all numerically stable (the row maximum is subtracted before exp).
#include <cmath>
#include <string>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

// y = exp(x - max) / sum; returns log(sum) + max, the row's log-sum-exp.
float softmaxRow(const float* __restrict x, float* __restrict y, int64_t n) {
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - mx);
    sum += y[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  return static_cast<float>(std::log(sum)) + mx;
}

}  // namespace

Status runSoftmax(const ir::Node& node, Inputs in, Outputs out) {
  const ir::Tensor& x = *in[0];
  ir::Tensor& y = *out[0];
  if (x.dtype() != ir::DType::F32) return nodeError(node, "expects f32 logits");
  if (node.op == OpKind::Softmax) {
    if (y.numElements() != x.numElements()) return nodeError(node, "output size differs");
    const int64_t cols = x.shape().empty() ? 1 : x.shape().back();
    if (cols == 0) return {};
    for (int64_t r = 0; r < x.numElements() / cols; ++r)
      softmaxRow(x.data<float>() + r * cols, y.data<float>() + r * cols, cols);
    return {};
  }

  const ir::Tensor& labels = *in[1];
  if (x.shape().size() != 2 || labels.dtype() != ir::DType::I64 || labels.shape().size() != 1 ||
      labels.shape()[0] != x.shape()[0])
    return nodeError(node, "expects logits [N,C] and i64 labels [N]");
  const int64_t rows = x.shape()[0], cols = x.shape()[1];
  const int64_t* lab = labels.data<int64_t>();
  for (int64_t r = 0; r < rows; ++r)
    if (lab[r] < 0 || lab[r] >= cols)
      return nodeError(node, "label " + std::to_string(lab[r]) + " at row " + std::to_string(r) +
                                 " is outside [0," + std::to_string(cols) + ")");

  if (node.op == OpKind::SoftmaxCrossEntropyGrad) {
    if (y.shape() != x.shape()) return nodeError(node, "dlogits must have the shape of logits");
    const float invN = rows ? 1.0f / static_cast<float>(rows) : 0.0f;
    for (int64_t r = 0; r < rows; ++r) {
      float* dst = y.data<float>() + r * cols;
      softmaxRow(x.data<float>() + r * cols, dst, cols);
      dst[lab[r]] -= 1.0f;
      for (int64_t c = 0; c < cols; ++c) dst[c] *= invN;
    }
    return {};
  }

  // SoftmaxCrossEntropy: mean over rows of logsumexp - logit[label].
  if (y.numElements() != 1) return nodeError(node, "loss must be a scalar");
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data<float>() + r * cols;
    float mx = row[0];
    for (int64_t c = 1; c < cols; ++c) mx = row[c] > mx ? row[c] : mx;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - mx);
    total += std::log(sum) + mx - row[lab[r]];
  }
  *y.data<float>() = rows ? static_cast<float>(total / static_cast<double>(rows)) : 0.0f;
  return {};
}

}  // namespace dfc::runtime::kernels
