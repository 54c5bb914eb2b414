// Reference semantics of global_avg_pool, batch_norm and adam_update: naive
// loops in double, no code shared with kernels/.
#include <cmath>
#include <string>

#include "runtime/ReferenceOps.h"

namespace dfc::runtime::reference {
namespace {

using ir::OpKind;
using ir::Tensor;

double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

}  // namespace

Status evalVisionOp(const ir::Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  Tensor& y = out[0];
  float* py = y.data<float>();
  switch (n.op) {
    case OpKind::GlobalAvgPool:
    case OpKind::GlobalAvgPoolGrad: {
      const bool grad = n.op == OpKind::GlobalAvgPoolGrad;
      const ir::Shape& xs = grad ? y.shape() : in[0]->shape();
      const int64_t plane = xs[2] * xs[3];
      for (int64_t nc = 0; nc < xs[0] * xs[1]; ++nc) {
        double acc = 0;
        for (int64_t i = 0; i < plane; ++i) {
          if (grad) py[nc * plane + i] = static_cast<float>(f(*in[0], nc) / static_cast<double>(plane));
          else acc += f(*in[0], nc * plane + i);
        }
        if (!grad) py[nc] = static_cast<float>(acc / static_cast<double>(plane));
      }
      return {};
    }
    case OpKind::BatchNorm:
    case OpKind::BatchNormGrad: {
      // Statistics per channel over N and the spatial axes; xhat = (x - mean) / sqrt(var + eps).
      const bool grad = n.op == OpKind::BatchNormGrad;
      const Tensor& x = grad ? *in[1] : *in[0];
      const Tensor& gamma = grad ? *in[2] : *in[1];
      const ir::Shape& xs = x.shape();
      int64_t inner = 1;
      for (size_t d = 2; d < xs.size(); ++d) inner *= xs[d];
      const int64_t batch = xs[0], channels = xs[1];
      const double m = static_cast<double>(batch * inner), eps = n.floatAttr("epsilon", 1e-5);
      auto idx = [&](int64_t b, int64_t c, int64_t i) { return (b * channels + c) * inner + i; };
      for (int64_t c = 0; c < channels; ++c) {
        double mean = 0, var = 0;
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < inner; ++i) mean += f(x, idx(b, c, i)) / m;
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < inner; ++i) var += (f(x, idx(b, c, i)) - mean) * (f(x, idx(b, c, i)) - mean) / m;
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
        out[1].data<float>()[c] = static_cast<float>(sdyx);
        out[2].data<float>()[c] = static_cast<float>(sdy);
      }
      return {};
    }
    case OpKind::AdamUpdate: {
      const double lr = f(*in[4], 0), t = f(*in[5], 0);
      const double b1 = n.floatAttr("beta1", 0.9), b2 = n.floatAttr("beta2", 0.999);
      const double eps = n.floatAttr("epsilon", 1e-8), wd = n.floatAttr("weight_decay", 0.0);
      for (int64_t i = 0; i < y.numElements(); ++i) {
        double p = f(*in[0], i), g = f(*in[1], i) + wd * p;
        double m = b1 * f(*in[2], i) + (1 - b1) * g, v = b2 * f(*in[3], i) + (1 - b2) * g * g;
        double mhat = m / (1 - std::pow(b1, t)), vhat = v / (1 - std::pow(b2, t));
        py[i] = static_cast<float>(p - lr * mhat / (std::sqrt(vhat) + eps));
        out[1].data<float>()[i] = static_cast<float>(m);
        out[2].data<float>()[i] = static_cast<float>(v);
      }
      return {};
    }
    default: return makeError(std::string(ir::opName(n.op)) + " '" + n.name + "': not a vision op");
  }
}

}  // namespace dfc::runtime::reference
