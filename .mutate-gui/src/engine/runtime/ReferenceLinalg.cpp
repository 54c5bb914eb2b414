// Reference semantics of the linear-algebra and layout families: naive loops
// over the definitions, double accumulation, no code shared with kernels/.
#include <cstring>
#include <string>

#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime::reference {
namespace {

using ir::Tensor;

double f(const Tensor& t, int64_t i) { return t.data<float>()[i]; }

// slice copies x[..., start:start+len, ...] out; slice_grad writes dy back into zeros.
Status slice(const RefArgs& a, bool grad) {
  Tensor& y = a.out[0];
  const ir::Shape& ys = y.shape();
  const size_t axis = static_cast<size_t>(a.node.intAttr("axis"));
  const int64_t start = a.node.intAttr("start");
  if (grad)
    for (int64_t o = 0; o < y.numElements(); ++o) y.data<float>()[o] = 0.0f;
  const Tensor& small = grad ? *a.in[0] : y;
  for (int64_t s = 0; s < small.numElements(); ++s) {
    auto c = unravel(s, small.shape());
    c[axis] += start;
    int64_t b = ravel(c, grad ? ys : a.in[0]->shape());
    if (grad) y.data<float>()[b] = static_cast<float>(f(*a.in[0], s));
    else y.data<float>()[s] = static_cast<float>(f(*a.in[0], b));
  }
  return {};
}

}  // namespace

Status LinalgReference::MatMul(const RefArgs& a) {
  bool ta = a.node.intAttr("trans_a") != 0, tb = a.node.intAttr("trans_b") != 0;
  const Tensor &x = *a.in[0], &w = *a.in[1];
  const auto &as = x.shape(), &bs = w.shape();
  float* py = a.out[0].data<float>();
  int64_t m = a.out[0].shape()[0], cols = a.out[0].shape()[1], k = ta ? as[0] : as[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) {
        float u = ta ? x.data<float>()[q * as[1] + i] : x.data<float>()[i * as[1] + q];
        float v = tb ? w.data<float>()[j * bs[1] + q] : w.data<float>()[q * bs[1] + j];
        acc += static_cast<double>(u) * v;
      }
      py[i * cols + j] = static_cast<float>(acc);
    }
  return {};
}

Status LinalgReference::Linear(const RefArgs& a) {  // y = x @ w^T + b
  const auto& xs = a.in[0]->shape();
  int64_t m = xs[0], k = xs[1], cols = a.in[1]->shape()[0];
  float* py = a.out[0].data<float>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t q = 0; q < k; ++q) acc += f(*a.in[0], i * k + q) * a.in[1]->data<float>()[j * k + q];
      py[i * cols + j] = static_cast<float>(acc + a.in[2]->data<float>()[j]);
    }
  return {};
}

Status LinalgReference::BatchMatMul(const RefArgs& a) {
  Tensor& y = a.out[0];
  const ir::Shape& ys = y.shape();
  const bool ta = a.node.intAttr("trans_a") != 0, tb = a.node.intAttr("trans_b") != 0;
  const auto &as = a.in[0]->shape(), &bs = a.in[1]->shape();
  const size_t r = ys.size();
  const int64_t m = ys[r - 2], cols = ys[r - 1], k = ta ? as[r - 2] : as[r - 1];
  const int64_t batch = m * cols == 0 ? 0 : y.numElements() / (m * cols);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) {
          double u = ta ? f(*a.in[0], p * as[r - 2] * as[r - 1] + q * as[r - 1] + i)
                        : f(*a.in[0], p * as[r - 2] * as[r - 1] + i * as[r - 1] + q);
          double v = tb ? f(*a.in[1], p * bs[r - 2] * bs[r - 1] + j * bs[r - 1] + q)
                        : f(*a.in[1], p * bs[r - 2] * bs[r - 1] + q * bs[r - 1] + j);
          acc += u * v;
        }
        y.data<float>()[(p * m + i) * cols + j] = static_cast<float>(acc);
      }
  return {};
}

Status LayoutReference::Reshape(const RefArgs& a) {
  std::memcpy(a.out[0].bytes(), a.in[0]->bytes(), a.out[0].byteSize());
  return {};
}

Status LayoutReference::ReduceSum(const RefArgs& a) {
  const auto& xs = a.in[0]->shape();
  auto axes = a.node.intsAttr("axes");
  const int64_t count = a.out[0].numElements();
  std::vector<double> acc(static_cast<size_t>(count), 0.0);
  for (int64_t i = 0; i < a.in[0]->numElements(); ++i) {
    // Decompose i into coordinates, drop reduced ones, recompose.
    int64_t rest = i, outIndex = 0, outStride = 1;
    for (size_t d = xs.size(); d-- > 0;) {
      int64_t coord = rest % xs[d];
      rest /= xs[d];
      bool reduced = false;
      for (int64_t ax : axes) reduced = reduced || ax == static_cast<int64_t>(d);
      if (!reduced) {
        outIndex += coord * outStride;
        outStride *= xs[d];
      }
    }
    acc[static_cast<size_t>(outIndex)] += a.in[0]->data<float>()[i];
  }
  for (int64_t i = 0; i < count; ++i) a.out[0].data<float>()[i] = static_cast<float>(acc[static_cast<size_t>(i)]);
  return {};
}

Status LayoutReference::Transpose(const RefArgs& a) {
  Tensor& y = a.out[0];
  auto perm = a.node.intsAttr("perm");
  const size_t esize = ir::dtypeSize(y.dtype());
  for (int64_t o = 0; o < y.numElements(); ++o) {
    auto oc = unravel(o, y.shape());
    std::vector<int64_t> ic(oc.size());
    for (size_t d = 0; d < oc.size(); ++d) ic[static_cast<size_t>(perm[d])] = oc[d];
    const std::byte* src = a.in[0]->bytes() + static_cast<size_t>(ravel(ic, a.in[0]->shape())) * esize;
    std::copy(src, src + esize, y.bytes() + static_cast<size_t>(o) * esize);
  }
  return {};
}

Status LayoutReference::Slice(const RefArgs& a) { return slice(a, false); }
Status LayoutReference::SliceGrad(const RefArgs& a) { return slice(a, true); }

}  // namespace dfc::runtime::reference
