// Reference semantics of the convolution, pooling and normalization families:
// naive loops in double, no code shared with kernels/.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime::reference {
namespace {

using ir::Tensor;

double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

std::vector<int64_t> attrPair(const ir::Node& n, const char* key, int64_t fallback) {
  auto v = n.intsAttr(key);
  if (v.size() != 2) v = {fallback, fallback};
  return v;
}

// x[n][c][h][w] in a 4-D NCHW tensor.
float at4(const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto& s = t.shape();
  return t.data<float>()[((a * s[1] + b) * s[2] + c) * s[3] + d];
}
float& ref4(Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto& s = t.shape();
  return t.data<float>()[((a * s[1] + b) * s[2] + c) * s[3] + d];
}

// Direct convolution sum for y[b][o][oy][ox].
double convAt(const Tensor& x, const Tensor& w, int64_t b, int64_t o, int64_t oy, int64_t ox,
              const std::vector<int64_t>& s, const std::vector<int64_t>& p) {
  const auto &xs = x.shape(), &ws = w.shape();
  double acc = 0;
  for (int64_t c = 0; c < ws[1]; ++c)
    for (int64_t i = 0; i < ws[2]; ++i)
      for (int64_t j = 0; j < ws[3]; ++j) {
        int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
        if (iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3])
          acc += static_cast<double>(at4(x, b, c, iy, ix)) * at4(w, o, c, i, j);
      }
  return acc;
}

Status maxPool(const RefArgs& a, bool grad) {
  const ir::Node& n = a.node;
  Tensor& y = a.out[0];
  auto k = attrPair(n, "kernel", 2), s = attrPair(n, "stride", 2), p = attrPair(n, "pad", 0);
  const Tensor& x = grad ? *a.in[1] : *a.in[0];
  const auto& xs = x.shape();
  int64_t oh = (xs[2] + 2 * p[0] - k[0]) / s[0] + 1, ow = (xs[3] + 2 * p[1] - k[1]) / s[1] + 1;
  if (grad) std::memset(y.bytes(), 0, y.byteSize());
  for (int64_t b = 0; b < xs[0]; ++b)
    for (int64_t c = 0; c < xs[1]; ++c)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          // Padding is -inf: only in-bounds cells compete; the first maximum wins.
          int64_t by = -1, bx = -1;
          for (int64_t i = 0; i < k[0]; ++i)
            for (int64_t j = 0; j < k[1]; ++j) {
              int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
              if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
              if (by < 0 || at4(x, b, c, iy, ix) > at4(x, b, c, by, bx)) {
                by = iy;
                bx = ix;
              }
            }
          if (grad) ref4(y, b, c, by, bx) += at4(*a.in[0], b, c, oy, ox);
          else ref4(y, b, c, oy, ox) = at4(x, b, c, by, bx);
        }
  return {};
}

Status globalAvgPool(const RefArgs& a, bool grad) {
  float* py = a.out[0].data<float>();
  const ir::Shape& xs = grad ? a.out[0].shape() : a.in[0]->shape();
  const int64_t plane = xs[2] * xs[3];
  for (int64_t nc = 0; nc < xs[0] * xs[1]; ++nc) {
    double acc = 0;
    for (int64_t i = 0; i < plane; ++i) {
      if (grad) py[nc * plane + i] = static_cast<float>(f(*a.in[0], nc) / static_cast<double>(plane));
      else acc += f(*a.in[0], nc * plane + i);
    }
    if (!grad) py[nc] = static_cast<float>(acc / static_cast<double>(plane));
  }
  return {};
}

// Statistics per channel over N and the spatial axes; xhat = (x - mean) / sqrt(var + eps).
Status batchNorm(const RefArgs& a, bool grad) {
  const auto& in = a.in;
  float* py = a.out[0].data<float>();
  const Tensor& x = grad ? *in[1] : *in[0];
  const Tensor& gamma = grad ? *in[2] : *in[1];
  const ir::Shape& xs = x.shape();
  int64_t inner = 1;
  for (size_t d = 2; d < xs.size(); ++d) inner *= xs[d];
  const int64_t batch = xs[0], channels = xs[1];
  const double m = static_cast<double>(batch * inner), eps = a.node.floatAttr("epsilon", 1e-5);
  auto idx = [&](int64_t b, int64_t c, int64_t i) { return (b * channels + c) * inner + i; };
  for (int64_t c = 0; c < channels; ++c) {
    double mean = 0, var = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < inner; ++i) mean += f(x, idx(b, c, i)) / m;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < inner; ++i) var += (f(x, idx(b, c, i)) - mean) * (f(x, idx(b, c, i)) - mean) / m;
    if (!grad && in.size() == 5) {
      // Running statistics: training moves them (PyTorch's momentum, unbiased variance); inference normalizes by them.
      const double mom = a.node.floatAttr("momentum", 0.1), unbiased = m > 1 ? var * m / (m - 1) : var;
      const bool training = a.node.intAttr("training", 0) != 0;
      const double runMean = f(*in[3], c), runVar = f(*in[4], c);
      a.out[1].data<float>()[c] = static_cast<float>(training ? (1 - mom) * runMean + mom * mean : runMean);
      a.out[2].data<float>()[c] = static_cast<float>(training ? (1 - mom) * runVar + mom * unbiased : runVar);
      if (!training) {
        mean = runMean;
        var = runVar;
      }
    }
    const double rstd = 1.0 / std::sqrt(var + eps);
    if (!grad) {
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < inner; ++i)
          py[idx(b, c, i)] = static_cast<float>((f(x, idx(b, c, i)) - mean) * rstd * f(gamma, c) + f(*in[2], c));
      continue;
    }
    // dx = gamma * rstd * (dy - mean(dy) - xhat * mean(dy * xhat)).
    double sdy = 0, sdyx = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < inner; ++i) {
        double xhat = (f(x, idx(b, c, i)) - mean) * rstd;
        sdy += f(*in[0], idx(b, c, i));
        sdyx += f(*in[0], idx(b, c, i)) * xhat;
      }
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < inner; ++i) {
        double xhat = (f(x, idx(b, c, i)) - mean) * rstd;
        py[idx(b, c, i)] = static_cast<float>(f(gamma, c) * rstd * (f(*in[0], idx(b, c, i)) - sdy / m - xhat * sdyx / m));
      }
    a.out[1].data<float>()[c] = static_cast<float>(sdyx);
    a.out[2].data<float>()[c] = static_cast<float>(sdy);
  }
  return {};
}

// Over the last axis. dx_j = sum_k dy_k gamma_k d(xhat_k)/d(x_j),
// d(xhat_k)/d(x_j) = rstd (delta_kj - 1/c - xhat_k xhat_j / c).
Status layerNorm(const RefArgs& a, bool grad) {
  const auto& in = a.in;
  Tensor& y = a.out[0];
  const Tensor& x = grad ? *in[1] : *in[0];
  const Tensor& gamma = grad ? *in[2] : *in[1];
  const int64_t c = y.shape().back(), count = y.numElements();
  const double eps = a.node.floatAttr("epsilon", 1e-5);
  std::vector<double> dgamma(static_cast<size_t>(c), 0.0), dbeta(static_cast<size_t>(c), 0.0);
  for (int64_t r = 0; r < count / c; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < c; ++j) mean += f(x, r * c + j) / static_cast<double>(c);
    for (int64_t j = 0; j < c; ++j) var += (f(x, r * c + j) - mean) * (f(x, r * c + j) - mean) / static_cast<double>(c);
    const double rstd = 1.0 / std::sqrt(var + eps);
    if (!grad) {
      for (int64_t j = 0; j < c; ++j)
        y.data<float>()[r * c + j] = static_cast<float>((f(x, r * c + j) - mean) * rstd * f(gamma, j) + f(*in[2], j));
      continue;
    }
    std::vector<double> xhat(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) xhat[static_cast<size_t>(j)] = (f(x, r * c + j) - mean) * rstd;
    for (int64_t j = 0; j < c; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < c; ++k) {
        double d = (k == j ? 1.0 : 0.0) - 1.0 / static_cast<double>(c) -
                   xhat[static_cast<size_t>(k)] * xhat[static_cast<size_t>(j)] / static_cast<double>(c);
        acc += f(*in[0], r * c + k) * f(gamma, k) * rstd * d;
      }
      y.data<float>()[r * c + j] = static_cast<float>(acc);
      dgamma[static_cast<size_t>(j)] += f(*in[0], r * c + j) * xhat[static_cast<size_t>(j)];
      dbeta[static_cast<size_t>(j)] += f(*in[0], r * c + j);
    }
  }
  if (grad)
    for (int64_t j = 0; j < c; ++j) {
      a.out[1].data<float>()[j] = static_cast<float>(dgamma[static_cast<size_t>(j)]);
      a.out[2].data<float>()[j] = static_cast<float>(dbeta[static_cast<size_t>(j)]);
    }
  return {};
}

}  // namespace

Status ConvReference::Conv2d(const RefArgs& a) {
  auto s = attrPair(a.node, "stride", 1), p = attrPair(a.node, "pad", 0);
  Tensor& y = a.out[0];
  const auto& ys = y.shape();
  for (int64_t b = 0; b < ys[0]; ++b)
    for (int64_t o = 0; o < ys[1]; ++o)
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox)
          ref4(y, b, o, oy, ox) = static_cast<float>(convAt(*a.in[0], *a.in[1], b, o, oy, ox, s, p));
  return {};
}

// dx[b][c][iy][ix] = sum over (o, i, j) with oy*s - p + i == iy of dy * w.
Status ConvReference::Conv2dGradInput(const RefArgs& a) {
  auto s = attrPair(a.node, "stride", 1), p = attrPair(a.node, "pad", 0);
  Tensor& y = a.out[0];
  const Tensor &dy = *a.in[0], &w = *a.in[1];
  const auto &xs = y.shape(), &ws = w.shape(), &ds = dy.shape();
  for (int64_t b = 0; b < xs[0]; ++b)
    for (int64_t c = 0; c < xs[1]; ++c)
      for (int64_t iy = 0; iy < xs[2]; ++iy)
        for (int64_t ix = 0; ix < xs[3]; ++ix) {
          double acc = 0;
          for (int64_t o = 0; o < ws[0]; ++o)
            for (int64_t i = 0; i < ws[2]; ++i)
              for (int64_t j = 0; j < ws[3]; ++j) {
                int64_t ny = iy + p[0] - i, nx = ix + p[1] - j;
                if (ny < 0 || nx < 0 || ny % s[0] || nx % s[1]) continue;
                int64_t oy = ny / s[0], ox = nx / s[1];
                if (oy >= ds[2] || ox >= ds[3]) continue;
                acc += static_cast<double>(at4(dy, b, o, oy, ox)) * at4(w, o, c, i, j);
              }
          ref4(y, b, c, iy, ix) = static_cast<float>(acc);
        }
  return {};
}

Status ConvReference::Conv2dGradWeight(const RefArgs& a) {
  auto s = attrPair(a.node, "stride", 1), p = attrPair(a.node, "pad", 0);
  Tensor& y = a.out[0];
  const Tensor &dy = *a.in[0], &x = *a.in[1];
  const auto &ws = y.shape(), &ds = dy.shape(), &xs = x.shape();
  for (int64_t o = 0; o < ws[0]; ++o)
    for (int64_t c = 0; c < ws[1]; ++c)
      for (int64_t i = 0; i < ws[2]; ++i)
        for (int64_t j = 0; j < ws[3]; ++j) {
          double acc = 0;
          for (int64_t b = 0; b < ds[0]; ++b)
            for (int64_t oy = 0; oy < ds[2]; ++oy)
              for (int64_t ox = 0; ox < ds[3]; ++ox) {
                int64_t iy = oy * s[0] - p[0] + i, ix = ox * s[1] - p[1] + j;
                if (iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3])
                  acc += static_cast<double>(at4(dy, b, o, oy, ox)) * at4(x, b, c, iy, ix);
              }
          ref4(y, o, c, i, j) = static_cast<float>(acc);
        }
  return {};
}

Status PoolReference::MaxPool2d(const RefArgs& a) { return maxPool(a, false); }
Status PoolReference::MaxPool2dGrad(const RefArgs& a) { return maxPool(a, true); }
Status PoolReference::GlobalAvgPool(const RefArgs& a) { return globalAvgPool(a, false); }
Status PoolReference::GlobalAvgPoolGrad(const RefArgs& a) { return globalAvgPool(a, true); }
Status NormReference::BatchNorm(const RefArgs& a) { return batchNorm(a, false); }
Status NormReference::BatchNormGrad(const RefArgs& a) { return batchNorm(a, true); }
Status NormReference::LayerNorm(const RefArgs& a) { return layerNorm(a, false); }
Status NormReference::LayerNormGrad(const RefArgs& a) { return layerNorm(a, true); }

}  // namespace dfc::runtime::reference
