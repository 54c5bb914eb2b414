// Transformer kernels: softmax_grad, GELU (GPT-2 tanh form), causal_mask,
// layer_norm over the last axis and embedding lookup, with their gradients.
// Row statistics accumulate in double; the per-element loops stay simple.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

void geluLoop(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(kGeluC * (v + kGeluA * v * v * v)));
  }
}

void geluGradLoop(const float* __restrict dy, const float* __restrict x, float* __restrict dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float t = std::tanh(kGeluC * (v + kGeluA * v * v * v));
    const float dt = (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * v * dt);
  }
}

void softmaxGradRow(const float* __restrict dy, const float* __restrict y, float* __restrict dx, int64_t n) {
  double dot = 0;
  for (int64_t i = 0; i < n; ++i) dot += static_cast<double>(dy[i]) * y[i];
  const float d = static_cast<float>(dot);
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - d);
}

// Mean and 1/sqrt(var + eps) of one row.
void rowStats(const float* x, int64_t n, double eps, float& mean, float& rstd) {
  double s = 0, ss = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  const double mu = s / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) ss += (x[i] - mu) * (x[i] - mu);
  mean = static_cast<float>(mu);
  rstd = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + eps));
}

void layerNormRow(const float* __restrict x, const float* __restrict g, const float* __restrict b,
                  float* __restrict y, int64_t n, float mean, float rstd) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * g[i] + b[i];
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * gamma;
// dgamma += dy * xhat, dbeta += dy.
void layerNormGradRow(const float* __restrict dy, const float* __restrict x, const float* __restrict gamma,
                      float* __restrict dx, float* __restrict dgamma, float* __restrict dbeta, int64_t n, float mean,
                      float rstd) {
  double sg = 0, sgx = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float xhat = (x[i] - mean) * rstd, g = dy[i] * gamma[i];
    sg += g;
    sgx += static_cast<double>(g) * xhat;
    dgamma[i] += dy[i] * xhat;
    dbeta[i] += dy[i];
  }
  const float mg = static_cast<float>(sg / static_cast<double>(n)), mgx = static_cast<float>(sgx / static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) dx[i] = rstd * (dy[i] * gamma[i] - mg - (x[i] - mean) * rstd * mgx);
}

Status checkIds(const ir::Node& node, const ir::Tensor& ids, int64_t vocab) {
  const int64_t* p = ids.data<int64_t>();
  for (int64_t i = 0; i < ids.numElements(); ++i)
    if (p[i] < 0 || p[i] >= vocab)
      return nodeError(node, "id " + std::to_string(p[i]) + " at position " + std::to_string(i) + " is outside [0," +
                                 std::to_string(vocab) + ")");
  return {};
}

int64_t lastDim(const ir::Tensor& t) { return t.shape().empty() ? 1 : t.shape().back(); }

}  // namespace

Status runTransformer(const ir::Node& node, Inputs in, Outputs out) {
  ir::Tensor& y = *out[0];
  const int64_t count = y.numElements();
  switch (node.op) {
    case OpKind::Gelu:
      geluLoop(in[0]->data<float>(), y.data<float>(), count);
      return {};
    case OpKind::GeluGrad:
      geluGradLoop(in[0]->data<float>(), in[1]->data<float>(), y.data<float>(), count);
      return {};
    case OpKind::SoftmaxGrad: {
      const int64_t cols = lastDim(y);
      for (int64_t r = 0; cols && r < count / cols; ++r)
        softmaxGradRow(in[0]->data<float>() + r * cols, in[1]->data<float>() + r * cols, y.data<float>() + r * cols,
                       cols);
      return {};
    }
    case OpKind::CausalMask: {
      const ir::Shape& s = y.shape();
      if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) return nodeError(node, "needs [..., T, T]");
      const int64_t t = s.back();
      const float fill = static_cast<float>(node.floatAttr("fill", -1e9));
      std::memcpy(y.bytes(), in[0]->bytes(), y.byteSize());
      for (int64_t m = 0; t && m < count / (t * t); ++m)
        for (int64_t i = 0; i < t; ++i) {
          float* row = y.data<float>() + (m * t + i) * t;
          for (int64_t j = i + 1; j < t; ++j) row[j] = fill;
        }
      return {};
    }
    case OpKind::LayerNorm: {
      const int64_t cols = lastDim(y);
      const double eps = node.floatAttr("epsilon", 1e-5);
      for (int64_t r = 0; cols && r < count / cols; ++r) {
        const float* x = in[0]->data<float>() + r * cols;
        float mean = 0, rstd = 0;
        rowStats(x, cols, eps, mean, rstd);
        layerNormRow(x, in[1]->data<float>(), in[2]->data<float>(), y.data<float>() + r * cols, cols, mean, rstd);
      }
      return {};
    }
    case OpKind::LayerNormGrad: {
      const int64_t cols = lastDim(y);
      const double eps = node.floatAttr("epsilon", 1e-5);
      float* dgamma = out[1]->data<float>();
      float* dbeta = out[2]->data<float>();
      std::memset(dgamma, 0, out[1]->byteSize());
      std::memset(dbeta, 0, out[2]->byteSize());
      for (int64_t r = 0; cols && r < count / cols; ++r) {
        const float* x = in[1]->data<float>() + r * cols;
        float mean = 0, rstd = 0;
        rowStats(x, cols, eps, mean, rstd);
        layerNormGradRow(in[0]->data<float>() + r * cols, x, in[2]->data<float>(), y.data<float>() + r * cols, dgamma,
                         dbeta, cols, mean, rstd);
      }
      return {};
    }
    case OpKind::Embedding: {
      const ir::Tensor &table = *in[0], &ids = *in[1];
      if (ids.dtype() != ir::DType::I64 || table.shape().size() != 2) return nodeError(node, "expects f32[V,D], i64 ids");
      const int64_t vocab = table.shape()[0], dim = table.shape()[1];
      DFC_TRY(checkIds(node, ids, vocab));
      const int64_t* p = ids.data<int64_t>();
      for (int64_t i = 0; i < ids.numElements(); ++i)
        std::memcpy(y.data<float>() + i * dim, table.data<float>() + p[i] * dim, static_cast<size_t>(dim) * sizeof(float));
      return {};
    }
    case OpKind::EmbeddingGrad: {
      const ir::Tensor &dy = *in[0], &ids = *in[1];
      if (ids.dtype() != ir::DType::I64 || y.shape().size() != 2) return nodeError(node, "expects i64 ids");
      const int64_t vocab = y.shape()[0], dim = y.shape()[1];
      DFC_TRY(checkIds(node, ids, vocab));
      std::memset(y.bytes(), 0, y.byteSize());
      const int64_t* p = ids.data<int64_t>();
      for (int64_t i = 0; i < ids.numElements(); ++i) {
        float* __restrict dst = y.data<float>() + p[i] * dim;
        const float* __restrict src = dy.data<float>() + i * dim;
        for (int64_t d = 0; d < dim; ++d) dst[d] += src[d];
      }
      return {};
    }
    default: return nodeError(node, "not a transformer op");
  }
}

}  // namespace dfc::runtime::kernels
