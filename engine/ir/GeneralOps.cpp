#include "ir/GeneralOps.h"

#include "ir/ShapeRules.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace dfc::ir {
namespace {

const std::set<std::string> kUnary = {
    "sqrt",       "exp",      "log",          "tanh",       "erf",        "neg",
    "reciprocal", "abs",      "sigmoid",      "relu",       "leaky_relu", "elu",
    "selu",       "clip",     "hard_sigmoid", "hard_swish", "softplus",   "softsign",
    "floor",      "ceil",     "round",        "sin",        "cos",        "sign",
    "not",        "identity", "tan",          "asin",       "acos",       "atan",
    "sinh",       "cosh",     "asinh",        "acosh",      "atanh",      "thresholded_relu",
    "celu",       "mish",     "gelu_erf",     "shrink",     "round_f16",  "round_bf16",
    "silu"};
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

bool isGeneralOp(OpKind op) { return opInfo(op).family == OpFamily::General; }

namespace {

using Types = std::vector<TensorType>;

const std::string* stringAttr(const Node& n, const char* key) {
  auto it = n.attrs.find(key);
  return it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
}

// conv (x, w) and pool (x): ONNX window geometry.
OutputTypes window(const ShapeArgs& a, bool conv) {
  const Node& n = a.node;
  const auto& in = a.in;
  if (in[0]->rank() != 4 || (conv && in[1]->rank() != 4)) return a.fail("needs 4-D NCHW operands");
  if (in[0]->dtype != DType::F32) return a.fail("needs f32");
  const Shape& x = in[0]->shape;
  auto s = n.intsAttr("strides"), p = n.intsAttr("pads"), d = n.intsAttr("dilations");
  if (s.empty()) s = {1, 1};
  if (p.empty()) p = {0, 0, 0, 0};
  if (d.empty()) d = {1, 1};
  Shape k = conv ? Shape{in[1]->shape[2], in[1]->shape[3]} : n.intsAttr("kernel");
  if (s.size() != 2 || p.size() != 4 || d.size() != 2 || k.size() != 2) return a.fail("bad window attributes");
  for (int i = 0; i < 2; ++i)
    if (s[i] <= 0 || d[i] <= 0 || k[i] <= 0 || p[i] < 0 || p[i + 2] < 0) return a.fail("bad window attributes");
  int64_t c = x[1];
  if (conv) {
    const int64_t g = n.intAttr("group", 1);
    const Shape& w = in[1]->shape;
    if (g <= 0 || x[1] != w[1] * g || w[0] % g != 0)
      return a.fail("input channels " + std::to_string(x[1]) + " do not fit weight " + shapeStr(w) + " with group " +
                    std::to_string(g));
    c = w[0];
  } else {
    const std::string* fn = stringAttr(n, "fn");
    if (!fn || (*fn != "max" && *fn != "avg")) return a.fail("fn must be max or avg");
  }
  const bool ceil = !conv && n.intAttr("ceil_mode") != 0;
  int64_t oh = windowOut(x[2], k[0], s[0], p[0], p[2], d[0], ceil);
  int64_t ow = windowOut(x[3], k[1], s[1], p[1], p[3], d[1], ceil);
  if (oh <= 0 || ow <= 0) return a.fail("window larger than the padded input " + shapeStr(x));
  return Types{{DType::F32, {x[0], c, oh, ow}}};
}

}  // namespace

OutputTypes GeneralShapes::Unary(const ShapeArgs& a) {
  const std::string* fn = stringAttr(a.node, "fn");
  if (!fn || !unaryFnKnown(*fn)) return a.fail("needs a known fn attribute");
  const DType dt = a.in[0]->dtype;
  if (*fn == "not" ? dt != DType::Bool : (*fn != "identity" && dt != DType::F32))
    return a.fail("fn " + *fn + " does not take " + std::string(dtypeName(dt)));
  return Types{*a.in[0]};
}

OutputTypes GeneralShapes::Binary(const ShapeArgs& a) {
  const auto& in = a.in;
  const std::string* fn = stringAttr(a.node, "fn");
  if (!fn || !binaryFnKnown(*fn)) return a.fail("needs a known fn attribute");
  if (in[0]->dtype != in[1]->dtype)
    return a.fail("operand dtypes differ: " + std::string(dtypeName(in[0]->dtype)) + " vs " +
                  std::string(dtypeName(in[1]->dtype)));
  if (kLogic.count(*fn) && in[0]->dtype != DType::Bool) return a.fail(*fn + " needs bool operands");
  if (!kLogic.count(*fn) && in[0]->dtype == DType::Bool && *fn != "equal") return a.fail(*fn + " does not take bool operands");
  auto s = broadcastShapes(in[0]->shape, in[1]->shape);
  if (!s) return a.fail("shapes " + shapeStr(in[0]->shape) + " and " + shapeStr(in[1]->shape) + " do not broadcast");
  return Types{{binaryFnIsComparison(*fn) ? DType::Bool : in[0]->dtype, *s}};
}

OutputTypes GeneralShapes::Where(const ShapeArgs& a) {
  const auto& in = a.in;
  if (in[0]->dtype != DType::Bool) return a.fail("condition must be bool");
  if (in[1]->dtype != in[2]->dtype) return a.fail("branch dtypes differ");
  auto s = broadcastShapes(in[0]->shape, in[1]->shape);
  if (s) s = broadcastShapes(*s, in[2]->shape);
  if (!s) return a.fail("shapes do not broadcast");
  return Types{{in[1]->dtype, *s}};
}

OutputTypes GeneralShapes::Cast(const ShapeArgs& a) {
  const std::string* to = stringAttr(a.node, "to");
  DType dt{};
  if (!to || !parseDType(*to, dt)) return a.fail("needs attribute to:f32|i64|i32|bool");
  return Types{{dt, a.in[0]->shape}};
}

OutputTypes GeneralShapes::Reduce(const ShapeArgs& a) {
  const std::string* fn = stringAttr(a.node, "fn");
  if (!fn || !reduceFnKnown(*fn)) return a.fail("needs a known fn attribute");
  if (a.in[0]->dtype != DType::F32) return a.fail("needs an f32 input");
  auto axes = a.node.intsAttr("axes");
  for (int64_t ax : axes)
    if (ax < 0 || ax >= static_cast<int64_t>(a.in[0]->rank())) return a.fail("axis " + std::to_string(ax) + " out of range");
  return Types{{DType::F32, reducedShape(a.in[0]->shape, axes, a.node.intAttr("keepdims", 1) != 0)}};
}

OutputTypes GeneralShapes::Expand(const ShapeArgs& a) {
  auto s = broadcastShapes(a.in[0]->shape, a.node.intsAttr("shape"));
  if (!s) return a.fail("cannot broadcast " + shapeStr(a.in[0]->shape) + " to " + shapeStr(a.node.intsAttr("shape")));
  return Types{{a.in[0]->dtype, *s}};
}

OutputTypes GeneralShapes::Concat(const ShapeArgs& a) {
  const auto& in = a.in;
  if (in.empty()) return a.fail("needs at least one input");
  const int64_t axis = a.node.intAttr("axis");
  Shape out = in[0]->shape;
  if (axis < 0 || axis >= static_cast<int64_t>(out.size())) return a.fail("axis out of range");
  for (size_t i = 1; i < in.size(); ++i) {
    const Shape& s = in[i]->shape;
    bool ok = in[i]->dtype == in[0]->dtype && s.size() == out.size();
    for (size_t d = 0; ok && d < s.size(); ++d) ok = static_cast<int64_t>(d) == axis || s[d] == out[d];
    if (!ok) return a.fail("input " + std::to_string(i) + " " + shapeStr(s) + " does not fit " + shapeStr(in[0]->shape));
    out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
  }
  return Types{{in[0]->dtype, out}};
}

OutputTypes GeneralShapes::Gather(const ShapeArgs& a) {
  const int64_t axis = a.node.intAttr("axis");
  const Shape& x = a.in[0]->shape;
  if (axis < 0 || axis >= static_cast<int64_t>(x.size())) return a.fail("axis out of range");
  if (a.in[1]->dtype != DType::I64 && a.in[1]->dtype != DType::I32) return a.fail("indices must be i64 or i32");
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), a.in[1]->shape.begin(), a.in[1]->shape.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  return Types{{a.in[0]->dtype, out}};
}

OutputTypes GeneralShapes::StridedSlice(const ShapeArgs& a) {
  auto starts = a.node.intsAttr("starts"), ends = a.node.intsAttr("ends"), steps = a.node.intsAttr("steps");
  const Shape& x = a.in[0]->shape;
  if (starts.size() != x.size() || ends.size() != x.size() || steps.size() != x.size())
    return a.fail("starts, ends and steps need one entry per axis of " + shapeStr(x));
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (steps[d] == 0) return a.fail("step 0");
    bool ok = steps[d] > 0 ? (starts[d] >= 0 && ends[d] <= x[d]) : (starts[d] < x[d] && ends[d] >= -1);
    if (!ok) return a.fail("range out of bounds on axis " + std::to_string(d));
    // Bounds are checked above, so the span fits; the step can be anything
    // (found by fuzz_onnx_importer: a step near INT64_MAX overflowed span + step - 1).
    const int64_t span = steps[d] > 0 ? ends[d] - starts[d] : starts[d] - ends[d];
    const int64_t step = steps[d] > 0 ? steps[d] : (steps[d] == INT64_MIN ? INT64_MAX : -steps[d]);
    int64_t len = span <= 0 ? 0 : 1 + (span - 1) / step;
    out[d] = std::max<int64_t>(len, 0);
  }
  return Types{{a.in[0]->dtype, out}};
}

OutputTypes GeneralShapes::Conv(const ShapeArgs& a) { return window(a, true); }
OutputTypes GeneralShapes::Pool(const ShapeArgs& a) { return window(a, false); }

OutputTypes GeneralShapes::AllReduce(const ShapeArgs& a) {
  if (a.in.empty()) return a.fail("needs at least one input");
  Types out;
  for (size_t i = 0; i < a.in.size(); ++i) {
    if (a.in[i]->dtype != DType::F32) return a.fail("input " + std::to_string(i) + " is not f32");
    out.push_back(*a.in[i]);
  }
  return out;
}

}  // namespace dfc::ir
