#include "ir/GeneralOps.h"

#include <algorithm>
#include <set>

namespace dfc::ir {
namespace {

std::string shapeStr(const Shape& s) { return TensorType{DType::F32, s}.toString().substr(3); }

Error fail(const Node& n, const std::string& what) {
  return makeError(std::string(opName(n.op)) + " '" + n.name + "': " + what);
}

const std::set<std::string> kUnary = {"sqrt", "exp", "log", "tanh", "erf", "neg", "reciprocal", "abs", "sigmoid",
                                      "relu", "leaky_relu", "elu", "selu", "clip", "hard_sigmoid", "hard_swish",
                                      "softplus", "softsign", "floor", "ceil", "round", "sin", "cos", "sign",
                                      "not", "identity", "tan", "asin", "acos", "atan", "sinh", "cosh",
                                      "asinh", "acosh", "atanh", "thresholded_relu", "celu", "mish", "gelu_erf",
                                      "shrink"};
const std::set<std::string> kArith = {"add", "sub", "mul", "div", "pow", "max", "min", "mod", "fmod"};
const std::set<std::string> kCompare = {"equal", "less", "greater", "less_equal", "greater_equal"};
const std::set<std::string> kLogic = {"and", "or", "xor"};
const std::set<std::string> kReduce = {"sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square",
                                       "log_sum_exp", "log_sum"};

}  // namespace

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool binaryFnIsComparison(const std::string& fn) { return kCompare.count(fn) || kLogic.count(fn); }
bool binaryFnKnown(const std::string& fn) { return kArith.count(fn) || kCompare.count(fn) || kLogic.count(fn); }
bool unaryFnKnown(const std::string& fn) { return kUnary.count(fn) > 0; }
bool reduceFnKnown(const std::string& fn) { return kReduce.count(fn) > 0; }

int64_t windowOut(int64_t in, int64_t k, int64_t stride, int64_t padBegin, int64_t padEnd, int64_t dilation,
                  bool ceilMode) {
  const int64_t span = in + padBegin + padEnd - ((k - 1) * dilation + 1);
  if (span < 0) return 0;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // A last window that would start in the end padding is dropped (ONNX and PyTorch).
  if (ceilMode && (out - 1) * stride >= in + padBegin) --out;
  return out;
}

bool isGeneralOp(OpKind op) {
  switch (op) {
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Where:
    case OpKind::Cast:
    case OpKind::Reduce:
    case OpKind::Expand:
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::StridedSlice:
    case OpKind::Conv:
    case OpKind::Pool: return true;
    default: return false;
  }
}

Expected<std::vector<TensorType>> inferGeneralOutputTypes(const Node& n, const std::vector<const TensorType*>& in) {
  auto one = [](TensorType t) { return std::vector<TensorType>{std::move(t)}; };
  switch (n.op) {
    case OpKind::Unary: {
      auto it = n.attrs.find("fn");
      const std::string* fn = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
      if (!fn || !unaryFnKnown(*fn)) return fail(n, "needs a known fn attribute");
      if (*fn == "not" ? in[0]->dtype != DType::Bool : (*fn != "identity" && in[0]->dtype != DType::F32))
        return fail(n, "fn " + *fn + " does not take " + std::string(dtypeName(in[0]->dtype)));
      return one(*in[0]);
    }
    case OpKind::Binary: {
      auto it = n.attrs.find("fn");
      const std::string* fn = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
      if (!fn || !binaryFnKnown(*fn)) return fail(n, "needs a known fn attribute");
      if (in[0]->dtype != in[1]->dtype)
        return fail(n, "operand dtypes differ: " + std::string(dtypeName(in[0]->dtype)) + " vs " +
                           std::string(dtypeName(in[1]->dtype)));
      if (kLogic.count(*fn) && in[0]->dtype != DType::Bool) return fail(n, *fn + " needs bool operands");
      if (!kLogic.count(*fn) && in[0]->dtype == DType::Bool && *fn != "equal")
        return fail(n, *fn + " does not take bool operands");
      auto s = broadcastShapes(in[0]->shape, in[1]->shape);
      if (!s) return fail(n, "shapes " + shapeStr(in[0]->shape) + " and " + shapeStr(in[1]->shape) + " do not broadcast");
      return one({binaryFnIsComparison(*fn) ? DType::Bool : in[0]->dtype, *s});
    }
    case OpKind::Where: {
      if (in[0]->dtype != DType::Bool) return fail(n, "condition must be bool");
      if (in[1]->dtype != in[2]->dtype) return fail(n, "branch dtypes differ");
      auto s = broadcastShapes(in[0]->shape, in[1]->shape);
      if (s) s = broadcastShapes(*s, in[2]->shape);
      if (!s) return fail(n, "shapes do not broadcast");
      return one({in[1]->dtype, *s});
    }
    case OpKind::Cast: {
      auto it = n.attrs.find("to");
      const std::string* to = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
      DType dt{};
      if (!to || !parseDType(*to, dt)) return fail(n, "needs attribute to:f32|i64|i32|bool");
      return one({dt, in[0]->shape});
    }
    case OpKind::Reduce: {
      auto it = n.attrs.find("fn");
      const std::string* fn = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
      if (!fn || !reduceFnKnown(*fn)) return fail(n, "needs a known fn attribute");
      if (in[0]->dtype != DType::F32) return fail(n, "needs an f32 input");
      auto axes = n.intsAttr("axes");
      const bool keep = n.intAttr("keepdims", 1) != 0;
      for (int64_t a : axes)
        if (a < 0 || a >= static_cast<int64_t>(in[0]->rank())) return fail(n, "axis " + std::to_string(a) + " out of range");
      Shape out;
      for (size_t d = 0; d < in[0]->rank(); ++d) {
        bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        if (!reduced) out.push_back(in[0]->shape[d]);
        else if (keep) out.push_back(1);
      }
      return one({DType::F32, out});
    }
    case OpKind::Expand: {
      auto s = broadcastShapes(in[0]->shape, n.intsAttr("shape"));
      if (!s) return fail(n, "cannot broadcast " + shapeStr(in[0]->shape) + " to " + shapeStr(n.intsAttr("shape")));
      return one({in[0]->dtype, *s});
    }
    case OpKind::Concat: {
      if (in.empty()) return fail(n, "needs at least one input");
      const int64_t axis = n.intAttr("axis");
      Shape out = in[0]->shape;
      if (axis < 0 || axis >= static_cast<int64_t>(out.size())) return fail(n, "axis out of range");
      for (size_t i = 1; i < in.size(); ++i) {
        const Shape& s = in[i]->shape;
        bool ok = in[i]->dtype == in[0]->dtype && s.size() == out.size();
        for (size_t d = 0; ok && d < s.size(); ++d) ok = static_cast<int64_t>(d) == axis || s[d] == out[d];
        if (!ok) return fail(n, "input " + std::to_string(i) + " " + shapeStr(s) + " does not fit " + shapeStr(in[0]->shape));
        out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
      }
      return one({in[0]->dtype, out});
    }
    case OpKind::Gather: {
      const int64_t axis = n.intAttr("axis");
      const Shape& x = in[0]->shape;
      if (axis < 0 || axis >= static_cast<int64_t>(x.size())) return fail(n, "axis out of range");
      if (in[1]->dtype != DType::I64 && in[1]->dtype != DType::I32) return fail(n, "indices must be i64 or i32");
      Shape out(x.begin(), x.begin() + axis);
      out.insert(out.end(), in[1]->shape.begin(), in[1]->shape.end());
      out.insert(out.end(), x.begin() + axis + 1, x.end());
      return one({in[0]->dtype, out});
    }
    case OpKind::StridedSlice: {
      auto starts = n.intsAttr("starts"), ends = n.intsAttr("ends"), steps = n.intsAttr("steps");
      const Shape& x = in[0]->shape;
      if (starts.size() != x.size() || ends.size() != x.size() || steps.size() != x.size())
        return fail(n, "starts, ends and steps need one entry per axis of " + shapeStr(x));
      Shape out(x.size());
      for (size_t d = 0; d < x.size(); ++d) {
        if (steps[d] == 0) return fail(n, "step 0");
        bool ok = steps[d] > 0 ? (starts[d] >= 0 && ends[d] <= x[d]) : (starts[d] < x[d] && ends[d] >= -1);
        if (!ok) return fail(n, "range out of bounds on axis " + std::to_string(d));
        int64_t len = steps[d] > 0 ? (ends[d] - starts[d] + steps[d] - 1) / steps[d]
                                   : (starts[d] - ends[d] + (-steps[d]) - 1) / (-steps[d]);
        out[d] = std::max<int64_t>(len, 0);
      }
      return one({in[0]->dtype, out});
    }
    case OpKind::Conv:
    case OpKind::Pool: {
      const bool conv = n.op == OpKind::Conv;
      if (in[0]->rank() != 4 || (conv && in[1]->rank() != 4)) return fail(n, "needs 4-D NCHW operands");
      if (in[0]->dtype != DType::F32) return fail(n, "needs f32");
      const Shape& x = in[0]->shape;
      auto s = n.intsAttr("strides"), p = n.intsAttr("pads"), d = n.intsAttr("dilations");
      if (s.empty()) s = {1, 1};
      if (p.empty()) p = {0, 0, 0, 0};
      if (d.empty()) d = {1, 1};
      Shape k = conv ? Shape{in[1]->shape[2], in[1]->shape[3]} : n.intsAttr("kernel");
      if (s.size() != 2 || p.size() != 4 || d.size() != 2 || k.size() != 2) return fail(n, "bad window attributes");
      for (int i = 0; i < 2; ++i)
        if (s[i] <= 0 || d[i] <= 0 || k[i] <= 0 || p[i] < 0 || p[i + 2] < 0) return fail(n, "bad window attributes");
      int64_t c = x[1];
      if (conv) {
        const int64_t g = n.intAttr("group", 1);
        const Shape& w = in[1]->shape;
        if (g <= 0 || x[1] != w[1] * g || w[0] % g != 0)
          return fail(n, "input channels " + std::to_string(x[1]) + " do not fit weight " + shapeStr(w) + " with group " +
                             std::to_string(g));
        c = w[0];
      } else {
        auto it = n.attrs.find("fn");
        const std::string* fn = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
        if (!fn || (*fn != "max" && *fn != "avg")) return fail(n, "fn must be max or avg");
      }
      const bool ceil = !conv && n.intAttr("ceil_mode") != 0;
      int64_t oh = windowOut(x[2], k[0], s[0], p[0], p[2], d[0], ceil);
      int64_t ow = windowOut(x[3], k[1], s[1], p[1], p[3], d[1], ceil);
      if (oh <= 0 || ow <= 0) return fail(n, "window larger than the padded input " + shapeStr(x));
      return one({DType::F32, {x[0], c, oh, ow}});
    }
    default: break;
  }
  return fail(n, "not a general op");
}

}  // namespace dfc::ir
