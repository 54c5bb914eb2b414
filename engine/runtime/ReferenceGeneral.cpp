// The oracle of the general ops (unary, binary, where, cast, reduce, expand,
// concat, gather, strided_slice, conv, pool), written from the ONNX operator
// definitions: every element addressed through an explicit multi-index, values
// in double (int64 for integer arithmetic). Shares no code with kernels/ so a
// disagreement points at one of the two.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/IntArith.h"
#include "support/Half.h"
#include "runtime/ReferenceFamilies.h"

namespace dfc::runtime::reference {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::Tensor;

Error genError(const ir::Node& n, const std::string& what) {
  return makeError(std::string(ir::opName(n.op)) + " '" + n.name + "': " + what);
}

std::string fnAttr(const ir::Node& n) {
  auto it = n.attrs.find("fn");
  if (it == n.attrs.end()) return {};
  const std::string* s = std::get_if<std::string>(&it->second);
  return s ? *s : std::string();
}

int64_t elementsOf(const Shape& s) {
  int64_t c = 1;
  for (int64_t d : s) c *= d;
  return c;
}

// numpy broadcasting: the element of `in` read by output multi-index `outIdx`
// (trailing axes aligned, size-1 axes pinned to 0).
int64_t broadcastSource(const Index& outIdx, const Shape& in) {
  const size_t lead = outIdx.size() - in.size();
  Index idx(in.size());
  for (size_t d = 0; d < in.size(); ++d) idx[d] = in[d] == 1 ? 0 : outIdx[lead + d];
  return ravel(idx, in);
}

double readNum(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::F32: return t.data<float>()[i];
    case DType::I64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::I32: return t.data<int32_t>()[i];
    case DType::Bool: return t.data<bool>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t readInt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::I64 ? t.data<int64_t>()[i] : static_cast<int64_t>(readNum(t, i));
}

void writeInt(Tensor& t, int64_t i, int64_t v) {
  if (t.dtype() == DType::I64) t.data<int64_t>()[i] = v;
  else if (t.dtype() == DType::I32) t.data<int32_t>()[i] = static_cast<int32_t>(v);
  else t.data<bool>()[i] = v != 0;
}

// Copies one element (any dtype) without converting it.
void copyElement(Tensor& dst, int64_t di, const Tensor& src, int64_t si) {
  const size_t es = ir::dtypeSize(src.dtype());
  std::memcpy(dst.bytes() + static_cast<size_t>(di) * es, src.bytes() + static_cast<size_t>(si) * es, es);
}

Status unary(const ir::Node& n, const Tensor& x, Tensor& y) {
  const std::string fn = fnAttr(n);
  const double alpha = n.floatAttr("alpha", 0.0), beta = n.floatAttr("beta", 0.0);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (fn == "not") {
      y.data<bool>()[i] = !x.data<bool>()[i];
      continue;
    }
    if (fn == "identity") {
      copyElement(y, i, x, i);
      continue;
    }
    const double v = x.data<float>()[i];
    const double softplus = std::log(1.0 + std::exp(v));
    double r;
    if (fn == "sqrt") r = std::sqrt(v);
    else if (fn == "exp") r = std::exp(v);
    else if (fn == "log") r = std::log(v);
    else if (fn == "tanh") r = (std::exp(2 * v) - 1) / (std::exp(2 * v) + 1);
    else if (fn == "erf") r = std::erf(v);
    else if (fn == "neg") r = 0.0 - v;
    else if (fn == "reciprocal") r = 1.0 / v;
    else if (fn == "abs") r = v < 0 ? -v : v;
    else if (fn == "sigmoid") r = std::exp(v) / (1.0 + std::exp(v));
    else if (fn == "relu") r = v < 0 ? 0.0 : v;
    else if (fn == "leaky_relu") r = v < 0 ? alpha * v : v;
    else if (fn == "elu") r = v < 0 ? alpha * (std::exp(v) - 1) : v;
    else if (fn == "selu") r = v <= 0 ? beta * alpha * (std::exp(v) - 1) : beta * v;  // beta is ONNX's gamma
    else if (fn == "celu") r = (v > 0 ? v : 0.0) + (v < 0 ? alpha * (std::exp(v / alpha) - 1) : 0.0);
    else if (fn == "clip") r = v < alpha ? alpha : (v > beta ? beta : v);
    else if (fn == "hard_sigmoid") {
      r = alpha * v + beta;
      r = r < 0 ? 0.0 : (r > 1 ? 1.0 : r);
    } else if (fn == "hard_swish") {
      double h = v / 6.0 + 0.5;
      r = v * (h < 0 ? 0.0 : (h > 1 ? 1.0 : h));
    } else if (fn == "softplus") r = softplus;
    else if (fn == "softsign") r = v / (1.0 + (v < 0 ? -v : v));
    else if (fn == "mish") r = v * std::tanh(softplus);
    else if (fn == "gelu_erf") r = v * 0.5 * (1.0 + std::erf(v * 0.70710678118654752440));
    else if (fn == "silu")
      r = v * std::exp(v) / (1.0 + std::exp(v));
    else if (fn == "thresholded_relu") r = v > alpha ? v : 0.0;
    else if (fn == "shrink") r = v < -alpha ? v + beta : (v > alpha ? v - beta : 0.0);
    else if (fn == "floor") r = std::floor(v);
    else if (fn == "ceil") r = std::ceil(v);
    else if (fn == "round") {  // halves go to the even neighbour
      r = std::floor(v);
      const double frac = v - r;
      if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
    } else if (fn == "sign") r = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
    else if (fn == "round_f16") r = support::roundToHalf(static_cast<float>(v));
    else if (fn == "round_bf16")
      r = support::roundToBfloat16(static_cast<float>(v));
    else if (fn == "sin") r = std::sin(v);
    else if (fn == "cos") r = std::cos(v);
    else if (fn == "tan") r = std::sin(v) / std::cos(v);
    else if (fn == "asin") r = std::asin(v);
    else if (fn == "acos") r = std::acos(v);
    else if (fn == "atan") r = std::atan(v);
    else if (fn == "sinh") r = (std::exp(v) - std::exp(-v)) / 2;
    else if (fn == "cosh") r = (std::exp(v) + std::exp(-v)) / 2;
    else if (fn == "asinh") r = std::log(v + std::sqrt(v * v + 1));
    else if (fn == "acosh") r = std::log(v + std::sqrt(v * v - 1));
    else if (fn == "atanh") r = 0.5 * std::log((1 + v) / (1 - v));
    else return genError(n, "no reference for unary fn '" + fn + "'");
    y.data<float>()[i] = static_cast<float>(r);
  }
  return {};
}

// Integer binary arithmetic as ONNX defines it (division truncates; mod takes
// the divisor's sign, fmod the dividend's; overflow wraps; INT_MIN / -1 does
// not trap); division by zero gives 0. Shared rules: runtime/IntArith.h.
int64_t intArith(const std::string& fn, int64_t a, int64_t b) {
  if (fn == "add") return wrapAdd(a, b);
  if (fn == "sub") return wrapSub(a, b);
  if (fn == "mul") return wrapMul(a, b);
  if (fn == "max") return a > b ? a : b;
  if (fn == "min") return a < b ? a : b;
  if (fn == "pow") return onnxPow(a, b);
  if (fn == "div") return onnxDiv(a, b);
  if (fn == "fmod") return onnxFmod(a, b);
  return onnxMod(a, b);
}

double floatArith(const std::string& fn, double a, double b) {
  if (fn == "add") return a + b;
  if (fn == "sub") return a - b;
  if (fn == "mul") return a * b;
  if (fn == "div") return a / b;
  if (fn == "pow") return std::pow(a, b);
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (fn == "max") return a < b ? b : a;
  if (fn == "min") return b < a ? b : a;
  if (fn == "fmod") return std::fmod(a, b);
  const double m = std::fmod(a, b);
  return m != 0 && (m < 0) != (b < 0) ? m + b : m;  // mod
}

Status binary(const ir::Node& n, const Tensor& a, const Tensor& b, Tensor& y) {
  const std::string fn = fnAttr(n);
  const bool logic = fn == "and" || fn == "or" || fn == "xor";
  const bool compare = fn == "equal" || fn == "less" || fn == "greater" || fn == "less_equal" || fn == "greater_equal";
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const Index idx = unravel(i, y.shape());
    const int64_t ia = broadcastSource(idx, a.shape()), ib = broadcastSource(idx, b.shape());
    if (logic || compare) {
      bool r;
      if (a.dtype() == DType::F32 || a.dtype() == DType::Bool) {
        const double u = readNum(a, ia), v = readNum(b, ib);
        r = fn == "equal" ? u == v : fn == "less" ? u < v : fn == "greater" ? u > v : fn == "less_equal" ? u <= v
          : fn == "greater_equal" ? u >= v : fn == "and" ? (u != 0 && v != 0) : fn == "or" ? (u != 0 || v != 0)
          : (u != 0) != (v != 0);
      } else {
        const int64_t u = readInt(a, ia), v = readInt(b, ib);
        r = fn == "equal" ? u == v : fn == "less" ? u < v : fn == "greater" ? u > v : fn == "less_equal" ? u <= v
                                                                                         : u >= v;
      }
      y.data<bool>()[i] = r;
    } else if (a.dtype() == DType::F32) {
      y.data<float>()[i] = static_cast<float>(floatArith(fn, readNum(a, ia), readNum(b, ib)));
    } else if (a.dtype() == DType::I64 || a.dtype() == DType::I32) {
      writeInt(y, i, intArith(fn, readInt(a, ia), readInt(b, ib)));
    } else {
      return genError(n, "no reference for binary fn '" + fn + "' on bool");
    }
  }
  return {};
}

Status where(const Tensor& c, const Tensor& a, const Tensor& b, Tensor& y) {
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const Index idx = unravel(i, y.shape());
    if (c.data<bool>()[broadcastSource(idx, c.shape())]) copyElement(y, i, a, broadcastSource(idx, a.shape()));
    else copyElement(y, i, b, broadcastSource(idx, b.shape()));
  }
  return {};
}

Status cast(const Tensor& x, Tensor& y) {
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (y.dtype() == DType::Bool) {
      y.data<bool>()[i] = x.dtype() == DType::F32 ? x.data<float>()[i] != 0.0f : readInt(x, i) != 0;
    } else if (y.dtype() == DType::F32) {
      y.data<float>()[i] = x.dtype() == DType::I64 ? static_cast<float>(x.data<int64_t>()[i])
                                                   : static_cast<float>(readNum(x, i));
    } else {
      // Float to integer truncates toward zero.
      writeInt(y, i, x.dtype() == DType::F32 ? static_cast<int64_t>(std::trunc(x.data<float>()[i])) : readInt(x, i));
    }
  }
  return {};
}

Status reduce(const ir::Node& n, const Tensor& x, Tensor& y) {
  const std::string fn = fnAttr(n);
  const auto axes = n.intsAttr("axes");
  const Shape& xs = x.shape();
  std::vector<bool> reduced(xs.size(), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
  // The output element of an input index: drop (or pin to 0) the reduced axes.
  Shape keptShape;
  for (size_t d = 0; d < xs.size(); ++d) keptShape.push_back(reduced[d] ? 1 : xs[d]);
  const int64_t outCount = elementsOf(keptShape);
  std::vector<std::vector<double>> groups(static_cast<size_t>(outCount));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    Index idx = unravel(i, xs);
    for (size_t d = 0; d < xs.size(); ++d)
      if (reduced[d]) idx[d] = 0;
    groups[static_cast<size_t>(ravel(idx, keptShape))].push_back(x.data<float>()[i]);
  }
  for (int64_t o = 0; o < outCount; ++o) {
    const auto& v = groups[static_cast<size_t>(o)];
    double r = 0;
    if (fn == "sum" || fn == "mean") {
      for (double e : v) r += e;
      if (fn == "mean") r /= static_cast<double>(v.size());
    } else if (fn == "max" || fn == "min") {
      r = fn == "max" ? -INFINITY : INFINITY;
      for (double e : v) r = fn == "max" ? (e > r ? e : r) : (e < r ? e : r);
    } else if (fn == "prod") {
      r = 1;
      for (double e : v) r *= e;
    } else if (fn == "l1") {
      for (double e : v) r += std::fabs(e);
    } else if (fn == "l2" || fn == "sum_square") {
      for (double e : v) r += e * e;
      if (fn == "l2") r = std::sqrt(r);
    } else if (fn == "log_sum") {
      for (double e : v) r += e;
      r = std::log(r);
    } else if (fn == "log_sum_exp") {
      for (double e : v) r += std::exp(e);
      r = std::log(r);
    } else {
      return genError(n, "no reference for reduce fn '" + fn + "'");
    }
    y.data<float>()[o] = static_cast<float>(r);
  }
  return {};
}

Status expand(const Tensor& x, Tensor& y) {
  for (int64_t i = 0; i < y.numElements(); ++i) copyElement(y, i, x, broadcastSource(unravel(i, y.shape()), x.shape()));
  return {};
}

Status concat(const ir::Node& n, const std::vector<const Tensor*>& in, Tensor& y) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  for (int64_t i = 0; i < y.numElements(); ++i) {
    Index idx = unravel(i, y.shape());
    size_t part = 0;
    while (idx[axis] >= in[part]->shape()[axis]) idx[axis] -= in[part++]->shape()[axis];
    copyElement(y, i, *in[part], ravel(idx, in[part]->shape()));
  }
  return {};
}

Status gather(const ir::Node& n, const Tensor& x, const Tensor& indices, Tensor& y) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  const size_t q = indices.shape().size();
  const int64_t len = x.shape()[axis];
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const Index idx = unravel(i, y.shape());
    // y[a..., j..., b...] = x[a..., indices[j...], b...]
    Index j(idx.begin() + static_cast<std::ptrdiff_t>(axis), idx.begin() + static_cast<std::ptrdiff_t>(axis + q));
    int64_t k = readInt(indices, ravel(j, indices.shape()));
    if (k < -len || k >= len) return genError(n, "index " + std::to_string(k) + " out of range");
    if (k < 0) k += len;
    Index src(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
    src.push_back(k);
    src.insert(src.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + q), idx.end());
    copyElement(y, i, x, ravel(src, x.shape()));
  }
  return {};
}

Status stridedSlice(const ir::Node& n, const Tensor& x, Tensor& y) {
  const auto starts = n.intsAttr("starts"), steps = n.intsAttr("steps");
  for (int64_t i = 0; i < y.numElements(); ++i) {
    Index idx = unravel(i, y.shape());
    for (size_t d = 0; d < idx.size(); ++d) idx[d] = starts[d] + idx[d] * steps[d];
    copyElement(y, i, x, ravel(idx, x.shape()));
  }
  return {};
}

// The window attributes of conv/pool, ONNX defaults filled in.
struct Window {
  std::vector<int64_t> strides, pads, dilations;
};

Window windowOf(const ir::Node& n) {
  Window w{n.intsAttr("strides"), n.intsAttr("pads"), n.intsAttr("dilations")};
  if (w.strides.size() != 2) w.strides = {1, 1};
  if (w.pads.size() != 4) w.pads = {0, 0, 0, 0};
  if (w.dilations.size() != 2) w.dilations = {1, 1};
  return w;
}

Status conv(const ir::Node& n, const Tensor& x, const Tensor& w, Tensor& y) {
  const Window win = windowOf(n);
  const int64_t group = n.intAttr("group", 1);
  const Shape &xs = x.shape(), &ws = w.shape(), &ys = y.shape();
  const int64_t inPerGroup = xs[1] / group, outPerGroup = ws[0] / group;
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const Index o = unravel(i, ys);  // [batch, outChannel, row, col]
    const int64_t g = o[1] / outPerGroup;
    double acc = 0;
    for (int64_t c = 0; c < inPerGroup; ++c)
      for (int64_t ky = 0; ky < ws[2]; ++ky)
        for (int64_t kx = 0; kx < ws[3]; ++kx) {
          const int64_t r = o[2] * win.strides[0] + ky * win.dilations[0] - win.pads[0];
          const int64_t col = o[3] * win.strides[1] + kx * win.dilations[1] - win.pads[1];
          if (r < 0 || r >= xs[2] || col < 0 || col >= xs[3]) continue;  // zero padding
          acc += static_cast<double>(x.data<float>()[ravel({o[0], g * inPerGroup + c, r, col}, xs)]) *
                 w.data<float>()[ravel({o[1], c, ky, kx}, ws)];
        }
    y.data<float>()[i] = static_cast<float>(acc);
  }
  return {};
}

// avg with count_include_pad counts the window positions inside the padded
// input (not those past it, which ceil_mode can create), as PyTorch and
// onnxruntime do.
Status pool(const ir::Node& n, const Tensor& x, Tensor& y) {
  const Window win = windowOf(n);
  const auto kernel = n.intsAttr("kernel");
  const bool isMax = fnAttr(n) == "max";
  const bool includePad = n.intAttr("count_include_pad") != 0;
  const Shape &xs = x.shape(), &ys = y.shape();
  for (int64_t i = 0; i < y.numElements(); ++i) {
    const Index o = unravel(i, ys);
    double best = -INFINITY, sum = 0;
    int64_t real = 0, inPadded = 0;
    for (int64_t ky = 0; ky < kernel[0]; ++ky)
      for (int64_t kx = 0; kx < kernel[1]; ++kx) {
        const int64_t r = o[2] * win.strides[0] + ky * win.dilations[0] - win.pads[0];
        const int64_t col = o[3] * win.strides[1] + kx * win.dilations[1] - win.pads[1];
        const bool rowPadded = r >= -win.pads[0] && r < xs[2] + win.pads[2];
        const bool colPadded = col >= -win.pads[1] && col < xs[3] + win.pads[3];
        if (rowPadded && colPadded) ++inPadded;
        if (r < 0 || r >= xs[2] || col < 0 || col >= xs[3]) continue;
        const double v = x.data<float>()[ravel({o[0], o[1], r, col}, xs)];
        best = v > best ? v : best;
        sum += v;
        ++real;
      }
    double r;
    if (isMax) r = best;
    else r = sum / static_cast<double>(includePad ? inPadded : (real > 0 ? real : 1));
    y.data<float>()[i] = static_cast<float>(r);
  }
  return {};
}

}  // namespace

Status GeneralReference::Unary(const RefArgs& a) { return unary(a.node, *a.in[0], a.out[0]); }
Status GeneralReference::Binary(const RefArgs& a) { return binary(a.node, *a.in[0], *a.in[1], a.out[0]); }
Status GeneralReference::Where(const RefArgs& a) { return where(*a.in[0], *a.in[1], *a.in[2], a.out[0]); }
Status GeneralReference::Cast(const RefArgs& a) { return cast(*a.in[0], a.out[0]); }
Status GeneralReference::Reduce(const RefArgs& a) { return reduce(a.node, *a.in[0], a.out[0]); }
Status GeneralReference::Expand(const RefArgs& a) { return expand(*a.in[0], a.out[0]); }
Status GeneralReference::Concat(const RefArgs& a) { return concat(a.node, a.in, a.out[0]); }
Status GeneralReference::Gather(const RefArgs& a) { return gather(a.node, *a.in[0], *a.in[1], a.out[0]); }
Status GeneralReference::StridedSlice(const RefArgs& a) { return stridedSlice(a.node, *a.in[0], a.out[0]); }
Status GeneralReference::Conv(const RefArgs& a) { return conv(a.node, *a.in[0], *a.in[1], a.out[0]); }
Status GeneralReference::Pool(const RefArgs& a) { return pool(a.node, *a.in[0], a.out[0]); }
// The reference interpreter is one process, a world of one: the average is the input.
Status GeneralReference::AllReduce(const RefArgs& a) {
  for (size_t i = 0; i < a.in.size() && i < a.out.size(); ++i) a.out[i] = a.in[i]->clone();
  return {};
}

}  // namespace dfc::runtime::reference
