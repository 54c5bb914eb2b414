// CNN kernels: global average pooling and batch normalization with batch
// statistics (training mode; inference uses batch statistics too for now),
// with their gradients; plus the Adam update.
#include <cmath>
#include <cstring>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::OpKind;

float sumLoop(const float* __restrict x, int64_t n) {
  float acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += x[i];
  return acc;
}
void fillLoop(float* __restrict y, float v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = v;
}
void affineLoop(const float* __restrict x, float a, float b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}

// Per-channel mean and 1/sqrt(var + eps) over N and the spatial axes.
void channelStats(const float* x, int64_t batch, int64_t channels, int64_t inner, int64_t c, double eps, float& mean,
                  float& rstd) {
  double s = 0, ss = 0;
  for (int64_t b = 0; b < batch; ++b) s += sumLoop(x + (b * channels + c) * inner, inner);
  const double m = static_cast<double>(batch * inner), mu = s / m;
  for (int64_t b = 0; b < batch; ++b) {
    const float* p = x + (b * channels + c) * inner;
    for (int64_t i = 0; i < inner; ++i) ss += (p[i] - mu) * (p[i] - mu);
  }
  mean = static_cast<float>(mu);
  rstd = static_cast<float>(1.0 / std::sqrt(ss / m + eps));
}

Status batchNorm(const ir::Node& node, Inputs in, Outputs out) {
  const bool grad = node.op == OpKind::BatchNormGrad;
  const ir::Tensor& x = *in[grad ? 1 : 0];
  const float* gamma = in[grad ? 2 : 1]->data<float>();
  const ir::Shape& xs = x.shape();
  if (xs.size() < 2) return nodeError(node, "needs [N, C, ...]");
  const int64_t batch = xs[0], channels = xs[1], inner = channels && batch ? x.numElements() / (batch * channels) : 0;
  const double eps = node.floatAttr("epsilon", 1e-5);
  const float m = static_cast<float>(batch * inner);
  for (int64_t c = 0; c < channels; ++c) {
    float mean = 0, rstd = 0;
    channelStats(x.data<float>(), batch, channels, inner, c, eps, mean, rstd);
    if (!grad) {
      const float a = rstd * gamma[c], b = in[2]->data<float>()[c] - mean * a;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t off = (n * channels + c) * inner;
        affineLoop(x.data<float>() + off, a, b, out[0]->data<float>() + off, inner);
      }
      continue;
    }
    double sdy = 0, sdyx = 0;
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t off = (n * channels + c) * inner;
      const float *dy = in[0]->data<float>() + off, *px = x.data<float>() + off;
      for (int64_t i = 0; i < inner; ++i) {
        sdy += dy[i];
        sdyx += dy[i] * (px[i] - mean) * rstd;
      }
    }
    const float k = gamma[c] * rstd, mdy = static_cast<float>(sdy) / m, mdyx = static_cast<float>(sdyx) / m;
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t off = (n * channels + c) * inner;
      const float* __restrict dy = in[0]->data<float>() + off;
      const float* __restrict px = x.data<float>() + off;
      float* __restrict dx = out[0]->data<float>() + off;
      for (int64_t i = 0; i < inner; ++i) dx[i] = k * (dy[i] - mdy - (px[i] - mean) * rstd * mdyx);
    }
    out[1]->data<float>()[c] = static_cast<float>(sdyx);
    out[2]->data<float>()[c] = static_cast<float>(sdy);
  }
  return {};
}

// m' = b1 m + (1-b1) g; v' = b2 v + (1-b2) g^2; p' = p - lr * m'/(1-b1^t) / (sqrt(v'/(1-b2^t)) + eps),
// with g = grad + wd * p (PyTorch Adam's L2 weight decay).
void adamLoop(const float* __restrict p, const float* __restrict g, const float* __restrict m, const float* __restrict v,
              float lr, float b1, float b2, float eps, float wd, float c1, float c2, float* __restrict pOut,
              float* __restrict mOut, float* __restrict vOut, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + wd * p[i];
    const float mi = b1 * m[i] + (1.0f - b1) * gi, vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    mOut[i] = mi;
    vOut[i] = vi;
    pOut[i] = p[i] - lr * (mi * c1) / (std::sqrt(vi * c2) + eps);
  }
}

}  // namespace

Status runVision(const ir::Node& node, Inputs in, Outputs out) {
  for (const ir::Tensor* t : in)
    if (t->dtype() != ir::DType::F32) return nodeError(node, "expects f32 tensors");
  switch (node.op) {
    case OpKind::GlobalAvgPool:
    case OpKind::GlobalAvgPoolGrad: {
      const bool grad = node.op == OpKind::GlobalAvgPoolGrad;
      const ir::Shape& xs = (grad ? out[0] : in[0])->shape();
      if (xs.size() != 4) return nodeError(node, "expects [N, C, H, W]");
      const int64_t plane = xs[2] * xs[3], planes = xs[0] * xs[1];
      const float inv = plane ? 1.0f / static_cast<float>(plane) : 0.0f;
      for (int64_t p = 0; p < planes; ++p) {
        if (grad) fillLoop(out[0]->data<float>() + p * plane, in[0]->data<float>()[p] * inv, plane);
        else out[0]->data<float>()[p] = sumLoop(in[0]->data<float>() + p * plane, plane) * inv;
      }
      return {};
    }
    case OpKind::BatchNorm:
    case OpKind::BatchNormGrad:
      return batchNorm(node, in, out);
    case OpKind::AdamUpdate: {
      const int64_t n = in[0]->numElements();
      for (size_t i = 1; i < 4; ++i)
        if (in[i]->numElements() != n) return nodeError(node, "param, grad and state sizes differ");
      if (in[4]->numElements() != 1 || in[5]->numElements() != 1) return nodeError(node, "lr and step must be scalars");
      const double t = *in[5]->data<float>();
      if (t < 1) return nodeError(node, "step must be >= 1 (1-based), got " + std::to_string(t));
      const double b1 = node.floatAttr("beta1", 0.9), b2 = node.floatAttr("beta2", 0.999);
      adamLoop(in[0]->data<float>(), in[1]->data<float>(), in[2]->data<float>(), in[3]->data<float>(),
               *in[4]->data<float>(), static_cast<float>(b1), static_cast<float>(b2),
               static_cast<float>(node.floatAttr("epsilon", 1e-8)), static_cast<float>(node.floatAttr("weight_decay", 0.0)),
               static_cast<float>(1.0 / (1.0 - std::pow(b1, t))), static_cast<float>(1.0 / (1.0 - std::pow(b2, t))),
               out[0]->data<float>(), out[1]->data<float>(), out[2]->data<float>(), n);
      return {};
    }
    default: return nodeError(node, "not a vision op");
  }
}

}  // namespace dfc::runtime::kernels
