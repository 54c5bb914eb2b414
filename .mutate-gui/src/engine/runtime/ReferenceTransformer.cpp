// Reference semantics of the transformer family: naive loops over the
// definitions, double precision, no code shared with kernels/.
#include <cmath>
#include <string>

#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime::reference {
namespace {

using ir::Tensor;

double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

double geluAt(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }

Status checkIds(const RefArgs& a, const Tensor& ids, int64_t vocab) {
  for (int64_t i = 0; i < ids.numElements(); ++i) {
    int64_t id = ids.data<int64_t>()[i];
    if (id < 0 || id >= vocab)
      return a.fail("id " + std::to_string(id) + " at position " + std::to_string(i) + " is outside [0," +
                    std::to_string(vocab) + ")");
  }
  return {};
}

}  // namespace

Status TransformerReference::SoftmaxGrad(const RefArgs& a) {
  Tensor& y = a.out[0];
  const int64_t c = y.shape().back();
  for (int64_t r = 0; r < y.numElements() / c; ++r) {
    double dot = 0;
    for (int64_t j = 0; j < c; ++j) dot += f(*a.in[0], r * c + j) * f(*a.in[1], r * c + j);
    for (int64_t j = 0; j < c; ++j)
      y.data<float>()[r * c + j] = static_cast<float>(f(*a.in[1], r * c + j) * (f(*a.in[0], r * c + j) - dot));
  }
  return {};
}

Status TransformerReference::Gelu(const RefArgs& a) {
  for (int64_t i = 0; i < a.out[0].numElements(); ++i)
    a.out[0].data<float>()[i] = static_cast<float>(geluAt(f(*a.in[0], i)));
  return {};
}

// The derivative by a central difference in double: independent of the kernel's closed form.
Status TransformerReference::GeluGrad(const RefArgs& a) {
  for (int64_t i = 0; i < a.out[0].numElements(); ++i) {
    const double x = f(*a.in[1], i), h = 1e-5;
    a.out[0].data<float>()[i] = static_cast<float>(f(*a.in[0], i) * (geluAt(x + h) - geluAt(x - h)) / (2 * h));
  }
  return {};
}

Status TransformerReference::CausalMask(const RefArgs& a) {
  Tensor& y = a.out[0];
  const int64_t t = y.shape().back();
  const float fill = static_cast<float>(a.node.floatAttr("fill", -1e9));
  for (int64_t o = 0; o < y.numElements(); ++o) {
    int64_t i = (o / t) % t, j = o % t;
    y.data<float>()[o] = j > i ? fill : static_cast<float>(f(*a.in[0], o));
  }
  return {};
}

Status TransformerReference::Embedding(const RefArgs& a) {
  const int64_t vocab = a.in[0]->shape()[0], dim = a.in[0]->shape()[1];
  DFC_TRY(checkIds(a, *a.in[1], vocab));
  for (int64_t o = 0; o < a.out[0].numElements(); ++o)
    a.out[0].data<float>()[o] = static_cast<float>(f(*a.in[0], a.in[1]->data<int64_t>()[o / dim] * dim + o % dim));
  return {};
}

Status TransformerReference::EmbeddingGrad(const RefArgs& a) {
  Tensor& y = a.out[0];
  const int64_t vocab = y.shape()[0], dim = y.shape()[1];
  const Tensor& ids = *a.in[1];
  DFC_TRY(checkIds(a, ids, vocab));
  for (int64_t v = 0; v < vocab; ++v)
    for (int64_t d = 0; d < dim; ++d) {
      double acc = 0;
      for (int64_t i = 0; i < ids.numElements(); ++i)
        if (ids.data<int64_t>()[i] == v) acc += f(*a.in[0], i * dim + d);
      y.data<float>()[v * dim + d] = static_cast<float>(acc);
    }
  return {};
}

}  // namespace dfc::runtime::reference
