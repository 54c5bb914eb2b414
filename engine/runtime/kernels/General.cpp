// The general ops: elementwise math with numpy broadcasting, casts,
// reductions and data movement (expand, concat, gather, strided_slice) over
// any dtype. Plain loops with a broadcast odometer; the hot paths of real
// models (matmul, conv2d) stay in their BLAS kernels.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ir/GeneralOps.h"
#include "runtime/IntArith.h"
#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

using ir::DType;
using ir::OpKind;

std::string fnOf(const ir::Node& n) {
  auto it = n.attrs.find("fn");
  const std::string* s = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  return s ? *s : std::string();
}

// Element strides of `in` laid over `out` (0 on broadcast axes), rank of out.
std::vector<int64_t> broadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = in.size(); i-- > 0;) {
    size_t o = i + (out.size() - in.size());
    st[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return st;
}

// Calls f(outIndex, offsets...) for every output element, offsets per input.
template <size_t N, typename F>
void forEachBroadcast(const ir::Shape& out, const std::array<std::vector<int64_t>, N>& strides, F&& f) {
  const size_t rank = out.size();
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> idx(rank, 0);
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < total; ++i) {
    f(i, off);
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (idx[d] < out[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

double erfSafe(double x) { return std::erf(x); }

// Integer pow, exact (through double, 0 to a negative power was inf cast to an
// integer: undefined behaviour). A negative exponent truncates 1/u^|v| toward
// zero; 0 to a negative power gives 0, as integer division by zero does here.
Status runUnary(const ir::Node& n, const ir::Tensor& x, ir::Tensor& y) {
  const std::string fn = fnOf(n);
  const int64_t count = x.numElements();
  if (fn == "identity") {
    std::memcpy(y.bytes(), x.bytes(), x.byteSize());
    return {};
  }
  if (fn == "not") {
    for (int64_t i = 0; i < count; ++i) y.data<bool>()[i] = !x.data<bool>()[i];
    return {};
  }
  const double a = n.floatAttr("alpha", 0.0), b = n.floatAttr("beta", 0.0);
  const float* px = x.data<float>();
  float* py = y.data<float>();
  auto apply = [&](auto op) {
    for (int64_t i = 0; i < count; ++i) py[i] = static_cast<float>(op(static_cast<double>(px[i])));
    return Status{};
  };
  if (fn == "sqrt") return apply([](double v) { return std::sqrt(v); });
  if (fn == "exp") return apply([](double v) { return std::exp(v); });
  if (fn == "log") return apply([](double v) { return std::log(v); });
  if (fn == "tanh") return apply([](double v) { return std::tanh(v); });
  if (fn == "erf") return apply(erfSafe);
  if (fn == "neg") return apply([](double v) { return -v; });
  if (fn == "reciprocal") return apply([](double v) { return 1.0 / v; });
  if (fn == "abs") return apply([](double v) { return std::fabs(v); });
  if (fn == "sigmoid") return apply([](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  if (fn == "relu") return apply([](double v) { return v > 0 ? v : 0.0; });
  if (fn == "leaky_relu") return apply([a](double v) { return v >= 0 ? v : a * v; });
  if (fn == "elu") return apply([a](double v) { return v >= 0 ? v : a * (std::exp(v) - 1); });
  if (fn == "selu") return apply([a, b](double v) { return b * (v > 0 ? v : a * (std::exp(v) - 1)); });
  if (fn == "celu") return apply([a](double v) { return std::max(0.0, v) + std::min(0.0, a * (std::exp(v / a) - 1)); });
  if (fn == "clip") return apply([a, b](double v) { return std::min(std::max(v, a), b); });
  if (fn == "hard_sigmoid") return apply([a, b](double v) { return std::max(0.0, std::min(1.0, a * v + b)); });
  if (fn == "hard_swish") return apply([](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); });
  if (fn == "softplus") return apply([](double v) { return v > 30 ? v : std::log1p(std::exp(v)); });
  if (fn == "softsign") return apply([](double v) { return v / (1 + std::fabs(v)); });
  if (fn == "mish") return apply([](double v) { return v * std::tanh(v > 30 ? v : std::log1p(std::exp(v))); });
  if (fn == "gelu_erf") return apply([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); });
  if (fn == "thresholded_relu") return apply([a](double v) { return v > a ? v : 0.0; });
  if (fn == "shrink") return apply([a, b](double v) { return v < -a ? v + b : v > a ? v - b : 0.0; });
  if (fn == "floor") return apply([](double v) { return std::floor(v); });
  if (fn == "ceil") return apply([](double v) { return std::ceil(v); });
  if (fn == "round") return apply([](double v) { return std::nearbyint(v); });  // half to even
  if (fn == "sign") return apply([](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; });
  if (fn == "sin") return apply([](double v) { return std::sin(v); });
  if (fn == "cos") return apply([](double v) { return std::cos(v); });
  if (fn == "tan") return apply([](double v) { return std::tan(v); });
  if (fn == "asin") return apply([](double v) { return std::asin(v); });
  if (fn == "acos") return apply([](double v) { return std::acos(v); });
  if (fn == "atan") return apply([](double v) { return std::atan(v); });
  if (fn == "sinh") return apply([](double v) { return std::sinh(v); });
  if (fn == "cosh") return apply([](double v) { return std::cosh(v); });
  if (fn == "asinh") return apply([](double v) { return std::asinh(v); });
  if (fn == "acosh") return apply([](double v) { return std::acosh(v); });
  if (fn == "atanh") return apply([](double v) { return std::atanh(v); });
  return nodeError(n, "unknown unary fn '" + fn + "'");
}

template <typename T>
Status binaryTyped(const ir::Node& n, const std::string& fn, const ir::Tensor& a, const ir::Tensor& b, ir::Tensor& y) {
  const std::array<std::vector<int64_t>, 2> st{broadcastStrides(a.shape(), y.shape()),
                                               broadcastStrides(b.shape(), y.shape())};
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  auto arith = [&](auto op) {
    T* py = y.data<T>();
    forEachBroadcast<2>(y.shape(), st, [&](int64_t i, const std::array<int64_t, 2>& o) { py[i] = op(pa[o[0]], pb[o[1]]); });
    return Status{};
  };
  auto cmp = [&](auto op) {
    bool* py = y.data<bool>();
    forEachBroadcast<2>(y.shape(), st, [&](int64_t i, const std::array<int64_t, 2>& o) { py[i] = op(pa[o[0]], pb[o[1]]); });
    return Status{};
  };
  constexpr bool isFloat = std::is_floating_point_v<T>;
  if (fn == "equal") return cmp([](T u, T v) { return u == v; });
  if (fn == "less") return cmp([](T u, T v) { return u < v; });
  if (fn == "greater") return cmp([](T u, T v) { return u > v; });
  if (fn == "less_equal") return cmp([](T u, T v) { return u <= v; });
  if (fn == "greater_equal") return cmp([](T u, T v) { return u >= v; });
  if constexpr (std::is_same_v<T, bool>) {
    if (fn == "and") return cmp([](bool u, bool v) { return u && v; });
    if (fn == "or") return cmp([](bool u, bool v) { return u || v; });
    if (fn == "xor") return cmp([](bool u, bool v) { return u != v; });
  } else {
    if (fn == "add") return arith([](T u, T v) { if constexpr (isFloat) return u + v; else return wrapAdd(u, v); });
    if (fn == "sub") return arith([](T u, T v) { if constexpr (isFloat) return u - v; else return wrapSub(u, v); });
    if (fn == "mul") return arith([](T u, T v) { if constexpr (isFloat) return u * v; else return wrapMul(u, v); });
    if (fn == "max") return arith([](T u, T v) { return u >= v || (isFloat && u != u) ? u : v; });
    if (fn == "min") return arith([](T u, T v) { return u <= v || (isFloat && u != u) ? u : v; });
    if (fn == "pow")
      return arith([](T u, T v) {
        if constexpr (isFloat) return static_cast<T>(std::pow(static_cast<double>(u), static_cast<double>(v)));
        else return onnxPow(u, v);
      });
    if (fn == "div")
      return arith([](T u, T v) {
        if constexpr (isFloat) return u / v;
        else return onnxDiv(u, v);
      });
    if (fn == "fmod")
      return arith([](T u, T v) {
        if constexpr (isFloat) return static_cast<T>(std::fmod(u, v));
        else return onnxFmod(u, v);
      });
    if (fn == "mod")  // the sign of the divisor, as Python's %
      return arith([](T u, T v) {
        if constexpr (isFloat) {
          T r = std::fmod(u, v);
          return r != 0 && ((r < 0) != (v < 0)) ? r + v : r;
        } else {
          return onnxMod(u, v);
        }
      });
  }
  return nodeError(n, "binary fn '" + fn + "' does not take " + std::string(ir::dtypeName(a.dtype())));
}

Status runBinary(const ir::Node& n, const ir::Tensor& a, const ir::Tensor& b, ir::Tensor& y) {
  const std::string fn = fnOf(n);
  switch (a.dtype()) {
    case DType::F32: return binaryTyped<float>(n, fn, a, b, y);
    case DType::I64: return binaryTyped<int64_t>(n, fn, a, b, y);
    case DType::I32: return binaryTyped<int32_t>(n, fn, a, b, y);
    case DType::Bool: return binaryTyped<bool>(n, fn, a, b, y);
  }
  return nodeError(n, "unknown dtype");
}

// Byte-wise broadcast copy: `srcs` laid over y's shape; pick(i, offsets) says which source.
Status runWhere(const ir::Tensor& c, const ir::Tensor& a, const ir::Tensor& b, ir::Tensor& y) {
  const std::array<std::vector<int64_t>, 3> st{broadcastStrides(c.shape(), y.shape()),
                                               broadcastStrides(a.shape(), y.shape()),
                                               broadcastStrides(b.shape(), y.shape())};
  const size_t es = ir::dtypeSize(y.dtype());
  const bool* pc = c.data<bool>();
  forEachBroadcast<3>(y.shape(), st, [&](int64_t i, const std::array<int64_t, 3>& o) {
    const std::byte* src = pc[o[0]] ? a.bytes() + o[1] * es : b.bytes() + o[2] * es;
    std::memcpy(y.bytes() + i * static_cast<int64_t>(es), src, es);
  });
  return {};
}

template <typename From>
void castFrom(const ir::Tensor& x, ir::Tensor& y) {
  const From* px = x.data<From>();
  const int64_t n = x.numElements();
  switch (y.dtype()) {
    case DType::F32: for (int64_t i = 0; i < n; ++i) y.data<float>()[i] = static_cast<float>(px[i]); break;
    case DType::I64: for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = static_cast<int64_t>(px[i]); break;
    case DType::I32: for (int64_t i = 0; i < n; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(px[i]); break;
    case DType::Bool: for (int64_t i = 0; i < n; ++i) y.data<bool>()[i] = px[i] != From{0}; break;
  }
}

Status runCast(const ir::Tensor& x, ir::Tensor& y) {
  switch (x.dtype()) {
    case DType::F32: castFrom<float>(x, y); break;
    case DType::I64: castFrom<int64_t>(x, y); break;
    case DType::I32: castFrom<int32_t>(x, y); break;
    case DType::Bool: castFrom<bool>(x, y); break;
  }
  return {};
}

Status runReduce(const ir::Node& n, const ir::Tensor& x, ir::Tensor& y) {
  const std::string fn = fnOf(n);
  const auto axes = n.intsAttr("axes");
  const ir::Shape& xs = x.shape();
  // y's shape with the reduced axes kept as 1, then broadcast strides over x.
  ir::Shape kept = xs;
  for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
  const std::array<std::vector<int64_t>, 1> st{broadcastStrides(kept, xs)};
  const int64_t outCount = y.numElements();
  const bool isMax = fn == "max", isMin = fn == "min";
  std::vector<double> acc(static_cast<size_t>(outCount),
                          isMax ? -std::numeric_limits<double>::infinity()
                          : isMin ? std::numeric_limits<double>::infinity()
                          : fn == "prod" ? 1.0 : 0.0);
  std::vector<double> mx;
  const float* px = x.data<float>();
  if (fn == "log_sum_exp") {  // subtract the max so exp cannot overflow
    mx.assign(static_cast<size_t>(outCount), -std::numeric_limits<double>::infinity());
    forEachBroadcast<1>(xs, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
      mx[static_cast<size_t>(o[0])] = std::max(mx[static_cast<size_t>(o[0])], static_cast<double>(px[i]));
    });
  }
  forEachBroadcast<1>(xs, st, [&](int64_t i, const std::array<int64_t, 1>& o) {
    double v = px[i];
    double& r = acc[static_cast<size_t>(o[0])];
    if (isMax) r = std::max(r, v);
    else if (isMin) r = std::min(r, v);
    else if (fn == "prod") r *= v;
    else if (fn == "l1") r += std::fabs(v);
    else if (fn == "l2" || fn == "sum_square") r += v * v;
    else if (fn == "log_sum_exp") r += std::exp(v - mx[static_cast<size_t>(o[0])]);
    else r += v;
  });
  const int64_t reduced = outCount > 0 ? x.numElements() / outCount : 0;
  float* py = y.data<float>();
  for (int64_t i = 0; i < outCount; ++i) {
    double r = acc[static_cast<size_t>(i)];
    if (fn == "mean") r /= static_cast<double>(reduced);
    else if (fn == "l2") r = std::sqrt(r);
    else if (fn == "log_sum") r = std::log(r);
    else if (fn == "log_sum_exp") r = std::log(r) + mx[static_cast<size_t>(i)];
    py[i] = static_cast<float>(r);
  }
  return {};
}

Status runExpand(const ir::Tensor& x, ir::Tensor& y) {
  const std::array<std::vector<int64_t>, 1> st{broadcastStrides(x.shape(), y.shape())};
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(y.dtype()));
  forEachBroadcast<1>(y.shape(), st, [&](int64_t i, const std::array<int64_t, 1>& o) {
    std::memcpy(y.bytes() + i * es, x.bytes() + o[0] * es, static_cast<size_t>(es));
  });
  return {};
}

int64_t product(const ir::Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

Status runConcat(const ir::Node& n, Inputs in, ir::Tensor& y) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  const ir::Shape& ys = y.shape();
  const int64_t outer = product(ys, 0, axis), inner = product(ys, axis + 1, ys.size());
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(y.dtype()));
  const int64_t rowBytes = ys[axis] * inner * es;
  int64_t at = 0;
  for (const ir::Tensor* t : in) {
    const int64_t chunk = t->shape()[axis] * inner * es;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.bytes() + o * rowBytes + at, t->bytes() + o * chunk, static_cast<size_t>(chunk));
    at += chunk;
  }
  return {};
}

Status runGather(const ir::Node& n, const ir::Tensor& x, const ir::Tensor& idx, ir::Tensor& y) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  const ir::Shape& xs = x.shape();
  const int64_t outer = product(xs, 0, axis), len = xs[axis], inner = product(xs, axis + 1, xs.size());
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(x.dtype()));
  const int64_t count = idx.numElements();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t k = idx.dtype() == DType::I64 ? idx.data<int64_t>()[j] : idx.data<int32_t>()[j];
      if (k < 0) k += len;
      if (k < 0 || k >= len) return nodeError(n, "index " + std::to_string(k) + " out of range [0, " + std::to_string(len) + ")");
      std::memcpy(y.bytes() + ((o * count + j) * inner) * es, x.bytes() + ((o * len + k) * inner) * es,
                  static_cast<size_t>(inner * es));
    }
  return {};
}

Status runStridedSlice(const ir::Node& n, const ir::Tensor& x, ir::Tensor& y) {
  const auto starts = n.intsAttr("starts"), steps = n.intsAttr("steps");
  const ir::Shape& xs = x.shape();
  const size_t rank = xs.size();
  std::vector<int64_t> stride(rank, 1);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * xs[d];
  std::array<std::vector<int64_t>, 1> st{std::vector<int64_t>(rank)};
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    st[0][d] = stride[d] * steps[d];
    base += starts[d] * stride[d];
  }
  const int64_t es = static_cast<int64_t>(ir::dtypeSize(x.dtype()));
  forEachBroadcast<1>(y.shape(), st, [&](int64_t i, const std::array<int64_t, 1>& o) {
    std::memcpy(y.bytes() + i * es, x.bytes() + (base + o[0]) * es, static_cast<size_t>(es));
  });
  return {};
}

}  // namespace

Status runWindowGeneral(const ir::Node& node, Inputs in, Outputs out);  // GeneralWindow.cpp

Status runGeneral(const ir::Node& node, Inputs in, Outputs out) {
  switch (node.op) {
    case OpKind::Unary: return runUnary(node, *in[0], *out[0]);
    case OpKind::Binary: return runBinary(node, *in[0], *in[1], *out[0]);
    case OpKind::Where: return runWhere(*in[0], *in[1], *in[2], *out[0]);
    case OpKind::Cast: return runCast(*in[0], *out[0]);
    case OpKind::Reduce: return runReduce(node, *in[0], *out[0]);
    case OpKind::Expand: return runExpand(*in[0], *out[0]);
    case OpKind::Concat: return runConcat(node, in, *out[0]);
    case OpKind::Gather: return runGather(node, *in[0], *in[1], *out[0]);
    case OpKind::StridedSlice: return runStridedSlice(node, *in[0], *out[0]);
    case OpKind::Conv:
    case OpKind::Pool: return runWindowGeneral(node, in, out);
    default: break;
  }
  return nodeError(node, "not a general op");
}

}  // namespace dfc::runtime::kernels
