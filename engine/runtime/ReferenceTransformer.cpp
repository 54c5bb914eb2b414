// Reference semantics of the layout and transformer ops: naive loops over
// the definitions, double precision, no code shared with kernels/.
#include <cmath>
#include <string>

#include "runtime/ReferenceOps.h"

namespace dfc::runtime::reference {
namespace {

using ir::OpKind;
using ir::Tensor;

Error opError(const ir::Node& n, const std::string& what) {
  return makeError(std::string(ir::opName(n.op)) + " '" + n.name + "': " + what);
}

double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

// Coordinates of flat index i in `shape`, and back.
std::vector<int64_t> unflatten(int64_t i, const ir::Shape& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}
int64_t flatten(const std::vector<int64_t>& c, const ir::Shape& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + c[d];
  return i;
}

double geluAt(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }

Status checkIds(const ir::Node& n, const Tensor& ids, int64_t vocab) {
  for (int64_t i = 0; i < ids.numElements(); ++i) {
    int64_t id = ids.data<int64_t>()[i];
    if (id < 0 || id >= vocab)
      return opError(n, "id " + std::to_string(id) + " at position " + std::to_string(i) + " is outside [0," +
                            std::to_string(vocab) + ")");
  }
  return {};
}

}  // namespace

Status evalTransformerOp(const ir::Node& n, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  Tensor& y = out[0];
  const int64_t count = y.numElements();
  const ir::Shape& ys = y.shape();
  switch (n.op) {
    case OpKind::Transpose: {
      auto perm = n.intsAttr("perm");
      const size_t esize = ir::dtypeSize(y.dtype());
      for (int64_t o = 0; o < count; ++o) {
        auto oc = unflatten(o, ys);
        std::vector<int64_t> ic(oc.size());
        for (size_t d = 0; d < oc.size(); ++d) ic[static_cast<size_t>(perm[d])] = oc[d];
        const std::byte* src = in[0]->bytes() + static_cast<size_t>(flatten(ic, in[0]->shape())) * esize;
        std::copy(src, src + esize, y.bytes() + static_cast<size_t>(o) * esize);
      }
      return {};
    }
    case OpKind::Slice:
    case OpKind::SliceGrad: {
      const size_t axis = static_cast<size_t>(n.intAttr("axis"));
      const int64_t start = n.intAttr("start");
      const bool grad = n.op == OpKind::SliceGrad;
      if (grad)
        for (int64_t o = 0; o < count; ++o) y.data<float>()[o] = 0.0f;
      const Tensor& small = grad ? *in[0] : y;
      for (int64_t s = 0; s < small.numElements(); ++s) {
        auto c = unflatten(s, small.shape());
        c[axis] += start;
        int64_t b = flatten(c, grad ? ys : in[0]->shape());
        if (grad) y.data<float>()[b] = static_cast<float>(f(*in[0], s));
        else y.data<float>()[s] = static_cast<float>(f(*in[0], b));
      }
      return {};
    }
    case OpKind::BatchMatMul: {
      const bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
      const auto &as = in[0]->shape(), &bs = in[1]->shape();
      const size_t r = ys.size();
      const int64_t m = ys[r - 2], cols = ys[r - 1], k = ta ? as[r - 2] : as[r - 1];
      const int64_t batch = m * cols == 0 ? 0 : count / (m * cols);
      for (int64_t p = 0; p < batch; ++p)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            double acc = 0;
            for (int64_t q = 0; q < k; ++q) {
              double a = ta ? f(*in[0], p * as[r - 2] * as[r - 1] + q * as[r - 1] + i)
                            : f(*in[0], p * as[r - 2] * as[r - 1] + i * as[r - 1] + q);
              double b = tb ? f(*in[1], p * bs[r - 2] * bs[r - 1] + j * bs[r - 1] + q)
                            : f(*in[1], p * bs[r - 2] * bs[r - 1] + q * bs[r - 1] + j);
              acc += a * b;
            }
            y.data<float>()[(p * m + i) * cols + j] = static_cast<float>(acc);
          }
      return {};
    }
    case OpKind::SoftmaxGrad: {
      const int64_t c = ys.back();
      for (int64_t r = 0; r < count / c; ++r) {
        double dot = 0;
        for (int64_t j = 0; j < c; ++j) dot += f(*in[0], r * c + j) * f(*in[1], r * c + j);
        for (int64_t j = 0; j < c; ++j)
          y.data<float>()[r * c + j] = static_cast<float>(f(*in[1], r * c + j) * (f(*in[0], r * c + j) - dot));
      }
      return {};
    }
    case OpKind::Gelu:
      for (int64_t i = 0; i < count; ++i) y.data<float>()[i] = static_cast<float>(geluAt(f(*in[0], i)));
      return {};
    case OpKind::GeluGrad:
      // The derivative by a central difference in double: independent of the kernel's closed form.
      for (int64_t i = 0; i < count; ++i) {
        const double x = f(*in[1], i), h = 1e-5;
        y.data<float>()[i] = static_cast<float>(f(*in[0], i) * (geluAt(x + h) - geluAt(x - h)) / (2 * h));
      }
      return {};
    case OpKind::CausalMask: {
      const int64_t t = ys.back();
      for (int64_t o = 0; o < count; ++o) {
        int64_t i = (o / t) % t, j = o % t;
        y.data<float>()[o] = j > i ? static_cast<float>(n.floatAttr("fill", -1e9)) : static_cast<float>(f(*in[0], o));
      }
      return {};
    }
    case OpKind::LayerNorm:
    case OpKind::LayerNormGrad: {
      const bool grad = n.op == OpKind::LayerNormGrad;
      const Tensor& x = grad ? *in[1] : *in[0];
      const Tensor& gamma = grad ? *in[2] : *in[1];
      const int64_t c = ys.back();
      const double eps = n.floatAttr("epsilon", 1e-5);
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
        // dx_j = sum_k dy_k gamma_k d(xhat_k)/d(x_j), d(xhat_k)/d(x_j) = rstd (delta_kj - 1/c - xhat_k xhat_j / c).
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
          out[1].data<float>()[j] = static_cast<float>(dgamma[static_cast<size_t>(j)]);
          out[2].data<float>()[j] = static_cast<float>(dbeta[static_cast<size_t>(j)]);
        }
      return {};
    }
    case OpKind::Embedding: {
      const int64_t vocab = in[0]->shape()[0], dim = in[0]->shape()[1];
      DFC_TRY(checkIds(n, *in[1], vocab));
      for (int64_t o = 0; o < count; ++o)
        y.data<float>()[o] = static_cast<float>(f(*in[0], in[1]->data<int64_t>()[o / dim] * dim + o % dim));
      return {};
    }
    case OpKind::EmbeddingGrad: {
      const int64_t vocab = ys[0], dim = ys[1];
      DFC_TRY(checkIds(n, *in[1], vocab));
      for (int64_t v = 0; v < vocab; ++v)
        for (int64_t d = 0; d < dim; ++d) {
          double acc = 0;
          for (int64_t i = 0; i < in[1]->numElements(); ++i)
            if (in[1]->data<int64_t>()[i] == v) acc += f(*in[0], i * dim + d);
          y.data<float>()[v * dim + d] = static_cast<float>(acc);
        }
      return {};
    }
    default: return opError(n, "not a transformer op");
  }
}

}  // namespace dfc::runtime::reference
