// Gradient rules of the general ops imported from ONNX (GeneralGrads in GradientFamilies.h).
#include "autograd/GradientFamilies.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "ir/GeneralOps.h"

namespace dfc::autograd {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;
using Ints = std::vector<int64_t>;

Error refuse(const ir::Node& n, const std::string& why) { return noRule(n, why); }

std::string fnOf(const ir::Node& n) {
  auto it = n.attrs.find("fn");
  const std::string* s = it == n.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  return s ? *s : std::string();
}

// Emits general ops with a sticky error: after the first failure every call
// returns kNoValue and status() holds the error, so rules read as formulas.
class Ops {
 public:
  explicit Ops(GradientEmitter& e) : m_e(e) {}

  const Status& status() const { return m_status; }
  const Shape& shape(ValueId v) const { return m_e.graph().value(v).type.shape; }

  ValueId emit(OpKind op, std::vector<ValueId> in, ir::Attributes attrs) {
    if (!m_status.ok() || std::count(in.begin(), in.end(), ir::kNoValue)) return ir::kNoValue;
    auto v = m_e.emit(op, std::move(in), std::move(attrs), "grad");
    if (!v) {
      m_status = v.error();
      return ir::kNoValue;
    }
    return *v;
  }
  ValueId un(const std::string& fn, ValueId x, double alpha = 0, double beta = 0) {
    return emit(OpKind::Unary, {x}, {{"fn", fn}, {"alpha", alpha}, {"beta", beta}});
  }
  ValueId bin(const std::string& fn, ValueId a, ValueId b) { return emit(OpKind::Binary, {a, b}, {{"fn", fn}}); }
  ValueId mul(ValueId a, ValueId b) { return bin("mul", a, b); }
  ValueId scalar(float v) { return m_e.filled("grad_c", {}, v); }
  ValueId where(ValueId c, ValueId a, ValueId b) { return emit(OpKind::Where, {c, a, b}, {}); }
  // dy where mask holds, else 0.
  ValueId masked(ValueId mask, ValueId dy) { return where(mask, dy, scalar(0.0f)); }
  ValueId reshape(ValueId v, const Shape& to) {
    if (v == ir::kNoValue || shape(v) == to) return v;
    return emit(OpKind::Reshape, {v}, {{"shape", to}});
  }
  ValueId expand(ValueId v, const Shape& to) {
    if (v == ir::kNoValue || shape(v) == to) return v;
    return emit(OpKind::Expand, {v}, {{"shape", to}});
  }
  // Sums a gradient of the broadcast output shape back to `target` (numpy
  // broadcasting in reverse: the leading axes and the size-1 axes).
  ValueId sumTo(ValueId g, const Shape& target) {
    if (g == ir::kNoValue) return g;
    const Shape& s = shape(g);
    const size_t lead = s.size() - target.size();
    Ints axes;
    for (size_t d = 0; d < s.size(); ++d)
      if (d < lead || (target[d - lead] == 1 && s[d] != 1)) axes.push_back(static_cast<int64_t>(d));
    if (!axes.empty())
      g = emit(OpKind::Reduce, {g}, {{"fn", std::string("sum")}, {"axes", axes}, {"keepdims", int64_t{0}}});
    return reshape(g, target);
  }

 private:
  GradientEmitter& m_e;
  Status m_status;
};

Expected<Grads> finish(Ops& o, Grads g) {
  if (!o.status().ok()) return o.status().error();
  return g;
}

// dx = dy * f'(x) for the unary fns that have a derivative.
Expected<Grads> unaryRule(Ops& o, const ir::Node& n, ValueId dy) {
  const std::string fn = fnOf(n);
  const ValueId x = n.inputs[0], y = n.outputs[0];
  const double a = n.floatAttr("alpha", 0.0), b = n.floatAttr("beta", 0.0);
  auto one = [&](ValueId v) { return finish(o, {v}); };
  if (fn == "identity") return Grads{dy};
  if (fn == "neg") return one(o.un("neg", dy));
  if (fn == "exp") return one(o.mul(dy, y));
  if (fn == "log") return one(o.bin("div", dy, x));
  if (fn == "sqrt") return one(o.bin("div", dy, o.mul(y, o.scalar(2.0f))));
  if (fn == "reciprocal") return one(o.un("neg", o.mul(dy, o.mul(y, y))));
  if (fn == "abs") return one(o.mul(dy, o.un("sign", x)));
  if (fn == "tanh") return one(o.mul(dy, o.bin("sub", o.scalar(1.0f), o.mul(y, y))));
  if (fn == "sigmoid") return one(o.mul(dy, o.mul(y, o.bin("sub", o.scalar(1.0f), y))));
  if (fn == "erf")  // 2/sqrt(pi) * exp(-x^2)
    return one(o.mul(dy, o.mul(o.scalar(static_cast<float>(2.0 / std::sqrt(M_PI))), o.un("exp", o.un("neg", o.mul(x, x))))));
  if (fn == "sin") return one(o.mul(dy, o.un("cos", x)));
  if (fn == "cos") return one(o.un("neg", o.mul(dy, o.un("sin", x))));
  if (fn == "softplus") return one(o.mul(dy, o.un("sigmoid", x)));
  if (fn == "softsign") {
    ValueId d = o.bin("add", o.scalar(1.0f), o.un("abs", x));
    return one(o.bin("div", dy, o.mul(d, d)));
  }
  if (fn == "relu") return one(o.masked(o.bin("greater", x, o.scalar(0.0f)), dy));
  if (fn == "leaky_relu")
    return one(o.where(o.bin("greater_equal", x, o.scalar(0.0f)), dy, o.mul(dy, o.scalar(static_cast<float>(a)))));
  if (fn == "elu")  // x < 0: y = a(e^x - 1), y' = y + a
    return one(o.where(o.bin("greater_equal", x, o.scalar(0.0f)), dy,
                       o.mul(dy, o.bin("add", y, o.scalar(static_cast<float>(a))))));
  if (fn == "selu")  // beta is the scale: x <= 0: y = b a (e^x - 1), y' = y + b a
    return one(o.where(o.bin("greater", x, o.scalar(0.0f)), o.mul(dy, o.scalar(static_cast<float>(b))),
                       o.mul(dy, o.bin("add", y, o.scalar(static_cast<float>(a * b))))));
  if (fn == "clip")
    return one(o.masked(o.bin("and", o.bin("greater_equal", x, o.scalar(static_cast<float>(a))),
                              o.bin("less_equal", x, o.scalar(static_cast<float>(b)))),
                        dy));
  if (fn == "hard_sigmoid") {
    ValueId t = o.bin("add", o.mul(x, o.scalar(static_cast<float>(a))), o.scalar(static_cast<float>(b)));
    ValueId inside = o.bin("and", o.bin("greater", t, o.scalar(0.0f)), o.bin("less", t, o.scalar(1.0f)));
    return one(o.masked(inside, o.mul(dy, o.scalar(static_cast<float>(a)))));
  }
  if (fn == "silu") {  // s + x s (1 - s), s = sigmoid(x)
    ValueId s = o.un("sigmoid", x);
    return one(o.mul(dy, o.bin("add", s, o.mul(x, o.mul(s, o.bin("sub", o.scalar(1.0f), s))))));
  }
  if (fn == "gelu_erf") {  // Phi(x) + x phi(x)
    ValueId cdf = o.mul(o.scalar(0.5f), o.bin("add", o.scalar(1.0f), o.un("erf", o.mul(x, o.scalar(static_cast<float>(M_SQRT1_2))))));
    ValueId pdf = o.mul(o.scalar(static_cast<float>(0.5 * M_2_SQRTPI * M_SQRT1_2)),
                        o.un("exp", o.mul(o.scalar(-0.5f), o.mul(x, x))));
    return one(o.mul(dy, o.bin("add", cdf, o.mul(x, pdf))));
  }
  if (fn == "floor" || fn == "ceil" || fn == "round" || fn == "sign" || fn == "not")
    return refuse(n, "is not differentiable (unary fn " + fn + " is piecewise constant)");
  return refuse(n, "has no gradient rule for unary fn " + fn);
}

Expected<Grads> binaryRule(Ops& o, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  const std::string fn = fnOf(n);
  const ValueId a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  const Shape sa = o.shape(a), sb = o.shape(b);
  ValueId ga = ir::kNoValue, gb = ir::kNoValue;
  if (fn == "add" || fn == "sub") {
    ga = dy;
    if (need[1]) gb = fn == "add" ? dy : o.un("neg", dy);
  } else if (fn == "mul") {
    if (need[0]) ga = o.mul(dy, b);
    if (need[1]) gb = o.mul(dy, a);
  } else if (fn == "div") {
    if (need[0]) ga = o.bin("div", dy, b);
    if (need[1]) gb = o.un("neg", o.mul(dy, o.bin("div", y, b)));  // -dy a / b^2
  } else if (fn == "pow") {
    if (need[0]) ga = o.mul(dy, o.mul(b, o.bin("pow", a, o.bin("sub", b, o.scalar(1.0f)))));
    if (need[1]) gb = o.mul(dy, o.mul(y, o.un("log", a)));
  } else if (fn == "max" || fn == "min") {
    // Ties go to a, as the kernel picks a.
    ValueId pickA = o.bin(fn == "max" ? "greater_equal" : "less_equal", a, b);
    if (need[0]) ga = o.masked(pickA, dy);
    if (need[1]) gb = o.where(pickA, o.scalar(0.0f), dy);
  } else if (ir::binaryFnIsComparison(fn)) {
    return refuse(n, "is not differentiable (binary fn " + fn + " has a bool result)");
  } else {
    return refuse(n, "has no gradient rule for binary fn " + fn);
  }
  Grads g(2, ir::kNoValue);
  if (need[0]) g[0] = o.sumTo(ga, sa);
  if (need[1]) g[1] = o.sumTo(gb, sb);
  return finish(o, g);
}

Expected<Grads> whereRule(Ops& o, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  const ValueId c = n.inputs[0];
  Grads g(3, ir::kNoValue);
  if (need[1]) g[1] = o.sumTo(o.masked(c, dy), o.shape(n.inputs[1]));
  if (need[2]) g[2] = o.sumTo(o.where(c, o.scalar(0.0f), dy), o.shape(n.inputs[2]));
  return finish(o, g);
}

Expected<Grads> reduceRule(Ops& o, const ir::Node& n, ValueId dy) {
  const std::string fn = fnOf(n);
  const ValueId x = n.inputs[0], y = n.outputs[0];
  const Shape xs = o.shape(x);
  Shape kept = xs;
  int64_t count = 1;
  for (int64_t a : n.intsAttr("axes")) {
    count *= xs[static_cast<size_t>(a)];
    kept[static_cast<size_t>(a)] = 1;
  }
  // A reduced-shape value laid back over x.
  auto back = [&](ValueId v) { return o.expand(o.reshape(v, kept), xs); };
  const ValueId g = back(dy);
  auto one = [&](ValueId v) { return finish(o, {v}); };
  if (fn == "sum") return one(g);
  if (fn == "mean") return one(o.mul(g, o.scalar(1.0f / static_cast<float>(count))));
  if (fn == "sum_square") return one(o.mul(g, o.mul(x, o.scalar(2.0f))));
  if (fn == "l1") return one(o.mul(g, o.un("sign", x)));
  if (fn == "l2") return one(o.mul(g, o.bin("div", x, back(y))));
  if (fn == "log_sum_exp") return one(o.mul(g, o.un("exp", o.bin("sub", x, back(y)))));
  if (fn == "log_sum") return one(o.mul(g, o.un("exp", o.un("neg", back(y)))));
  if (fn == "max" || fn == "min") {
    // The gradient goes to the extremal elements, split evenly between ties.
    ValueId hit = o.bin("equal", x, back(y));
    ValueId ties = o.emit(OpKind::Reduce, {o.emit(OpKind::Cast, {hit}, {{"to", std::string("f32")}})},
                          {{"fn", std::string("sum")}, {"axes", n.intsAttr("axes")}, {"keepdims", int64_t{1}}});
    return one(o.masked(hit, o.bin("div", g, o.expand(ties, xs))));
  }
  return refuse(n, "has no gradient rule for reduce fn " + fn + " (prod is not supported: zeros in x)");
}

Expected<Grads> concatRule(Ops& o, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  const Shape ys = o.shape(dy);
  Grads g(n.inputs.size(), ir::kNoValue);
  int64_t at = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int64_t len = o.shape(n.inputs[i])[axis];
    if (need[i]) {
      Ints starts(ys.size(), 0), ends(ys.begin(), ys.end()), steps(ys.size(), 1);
      starts[axis] = at;
      ends[axis] = at + len;
      g[i] = o.emit(OpKind::StridedSlice, {dy}, {{"starts", starts}, {"ends", ends}, {"steps", steps}});
    }
    at += len;
  }
  return finish(o, g);
}

// Scatter-add through embedding_grad: dy's index axes become rows, indices
// normalized to [0, len) with Python-style mod.
Expected<Grads> gatherRule(Ops& o, GradientEmitter& e, const ir::Node& n, ValueId dy) {
  const size_t axis = static_cast<size_t>(n.intAttr("axis"));
  const Shape xs = o.shape(n.inputs[0]), is = o.shape(n.inputs[1]);
  const size_t q = is.size(), rank = xs.size();
  const int64_t len = xs[axis];
  const int64_t rows = std::accumulate(is.begin(), is.end(), int64_t{1}, std::multiplies<>());
  const int64_t cols = std::accumulate(xs.begin(), xs.end(), int64_t{1}, std::multiplies<>()) / len;
  // dy [A..., I..., B...] -> [I..., A..., B...] -> [rows, cols]
  Ints perm;
  for (size_t d = axis; d < axis + q; ++d) perm.push_back(static_cast<int64_t>(d));
  for (size_t d = 0; d < axis; ++d) perm.push_back(static_cast<int64_t>(d));
  for (size_t d = axis + q; d < rank - 1 + q; ++d) perm.push_back(static_cast<int64_t>(d));
  ValueId moved = axis == 0 ? dy : o.emit(OpKind::Transpose, {dy}, {{"perm", perm}});
  ValueId table = o.reshape(moved, {rows, cols});
  ir::Tensor lenT(ir::TensorType{ir::DType::I64, {}});
  lenT.data<int64_t>()[0] = len;
  ValueId ids = n.inputs[1];
  if (e.graph().value(ids).type.dtype != ir::DType::I64)
    ids = o.emit(OpKind::Cast, {ids}, {{"to", std::string("i64")}});
  ids = o.reshape(o.bin("mod", ids, e.constant("grad_len", std::move(lenT))), {rows});
  ValueId dense = o.emit(OpKind::EmbeddingGrad, {table, ids}, {{"num_embeddings", len}});
  // [len, A..., B...] -> [A..., len, B...]
  Shape lead{len};
  for (size_t d = 0; d < rank; ++d)
    if (d != axis) lead.push_back(xs[d]);
  ValueId full = o.reshape(dense, lead);
  if (axis != 0) {
    Ints back;
    for (size_t d = 1; d <= axis; ++d) back.push_back(static_cast<int64_t>(d));
    back.push_back(0);
    for (size_t d = axis + 1; d < rank; ++d) back.push_back(static_cast<int64_t>(d));
    full = o.emit(OpKind::Transpose, {full}, {{"perm", back}});
  }
  return finish(o, {full, ir::kNoValue});
}

// Per axis: undo the step (reverse a negative one, interleave zeros for |step| > 1),
// then zero-pad back to the input extent with slice_grad.
Expected<Grads> stridedSliceRule(Ops& o, GradientEmitter& e, const ir::Node& n, ValueId dy) {
  const Shape xs = o.shape(n.inputs[0]);
  const auto starts = n.intsAttr("starts"), steps = n.intsAttr("steps");
  const Shape ys = o.shape(dy);
  if (std::count(ys.begin(), ys.end(), 0)) return Grads{e.filled("grad_zero", xs, 0.0f)};
  ValueId g = dy;
  for (size_t d = 0; d < xs.size(); ++d) {
    Shape cur = o.shape(g);
    const int64_t count = cur[d];
    int64_t step = steps[d], lo = starts[d];
    if (step < 0) {  // reverse: ascending from the last element taken
      Ints s(cur.size(), 0), en(cur.begin(), cur.end()), st(cur.size(), 1);
      s[d] = count - 1;
      en[d] = -1;
      st[d] = -1;
      g = o.emit(OpKind::StridedSlice, {g}, {{"starts", s}, {"ends", en}, {"steps", st}});
      step = -step;
      lo = starts[d] - (count - 1) * step;
    }
    if (step > 1) {  // [.., count, ..] -> [.., count, step, ..] with zeros after each element -> [.., count*step, ..]
      Shape split = cur;
      split.insert(split.begin() + static_cast<std::ptrdiff_t>(d) + 1, 1);
      Shape zeros = split;
      zeros[d + 1] = step - 1;
      g = o.emit(OpKind::Concat, {o.reshape(g, split), e.filled("grad_zeros", zeros, 0.0f)},
                 {{"axis", static_cast<int64_t>(d + 1)}});
      Shape spread = cur;
      spread[d] = count * step;
      g = o.reshape(g, spread);
      const int64_t keep = std::min(count * step, xs[d] - lo);  // drop zeros past the input's end
      if (keep < count * step) {
        Ints s(spread.size(), 0), en(spread.begin(), spread.end()), st(spread.size(), 1);
        en[d] = keep;
        g = o.emit(OpKind::StridedSlice, {g}, {{"starts", s}, {"ends", en}, {"steps", st}});
      }
    }
    if (g != ir::kNoValue && o.shape(g)[d] != xs[d]) {
      Shape target = o.shape(g);
      target[d] = xs[d];
      g = o.emit(OpKind::SliceGrad, {g}, {{"axis", static_cast<int64_t>(d)}, {"start", lo}, {"input_shape", target}});
    }
  }
  return finish(o, {g});
}

struct Window {
  Ints strides, pads, dilations;
};

Window windowOf(const ir::Node& n) {
  Window w{n.intsAttr("strides"), n.intsAttr("pads"), n.intsAttr("dilations")};
  if (w.strides.empty()) w.strides = {1, 1};
  if (w.pads.empty()) w.pads = {0, 0, 0, 0};
  if (w.dilations.empty()) w.dilations = {1, 1};
  return w;
}

// The window as conv2d/maxpool2d sees it (no dilation, pads [top, left] on
// both sides): the outputs are then a prefix of theirs (end pads or ceil mode
// can only drop trailing windows). Returns their output [h, w], or nullopt.
std::optional<Ints> plainWindow(const Window& w, const Shape& xs, const Shape& ys, int64_t kh, int64_t kw) {
  if (w.dilations != Ints{1, 1}) return std::nullopt;
  Ints out{ir::windowOut(xs[2], kh, w.strides[0], w.pads[0], w.pads[0], 1, false),
           ir::windowOut(xs[3], kw, w.strides[1], w.pads[1], w.pads[1], 1, false)};
  if (out[0] < ys[2] || out[1] < ys[3]) return std::nullopt;
  return out;
}

// dy zero-extended with the trailing windows conv2d/maxpool2d would add.
ValueId padToPlain(Ops& o, ValueId dy, const Ints& plain) {
  for (size_t d = 2; d < 4 && dy != ir::kNoValue; ++d) {
    Shape target = o.shape(dy);
    if (target[d] == plain[d - 2]) continue;
    target[d] = plain[d - 2];
    dy = o.emit(OpKind::SliceGrad, {dy}, {{"axis", static_cast<int64_t>(d)}, {"start", int64_t{0}}, {"input_shape", target}});
  }
  return dy;
}

Expected<Grads> convRule(Ops& o, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  const Window w = windowOf(n);
  const Shape xs = o.shape(n.inputs[0]), ws = o.shape(n.inputs[1]), ys = o.shape(dy);
  if (n.intAttr("group", 1) != 1) return refuse(n, "has no gradient rule for grouped conv (group > 1)");
  const auto plain = plainWindow(w, xs, ys, ws[2], ws[3]);
  if (!plain) return refuse(n, "has no gradient rule for dilated conv or end pads larger than begin pads");
  dy = padToPlain(o, dy, *plain);
  ir::Attributes common{{"stride", w.strides}, {"pad", Ints{w.pads[0], w.pads[1]}}};
  Grads g(2, ir::kNoValue);
  if (need[0]) {
    ir::Attributes a = common;
    a["input_shape"] = xs;
    g[0] = o.emit(OpKind::Conv2dGradInput, {dy, n.inputs[1]}, a);
  }
  if (need[1]) {
    ir::Attributes a = common;
    a["weight_shape"] = ws;
    g[1] = o.emit(OpKind::Conv2dGradWeight, {dy, n.inputs[0]}, a);
  }
  return finish(o, g);
}

Expected<Grads> poolRule(Ops& o, GradientEmitter& e, const ir::Node& n, ValueId dy) {
  const Window w = windowOf(n);
  const Ints k = n.intsAttr("kernel");
  const Shape xs = o.shape(n.inputs[0]), ys = o.shape(dy);
  const auto plain = plainWindow(w, xs, ys, k[0], k[1]);
  if (!plain) return refuse(n, "has no gradient rule for dilated pooling, or ceil mode / end pads that add windows");
  const Ints pad{w.pads[0], w.pads[1]};
  if (fnOf(n) == "max") {
    if (pad[0] >= k[0] || pad[1] >= k[1]) return refuse(n, "has no gradient rule for max pooling with pad >= kernel");
    return finish(o, {o.emit(OpKind::MaxPool2dGrad, {padToPlain(o, dy, *plain), n.inputs[0]}, {{"kernel", k}, {"stride", w.strides}, {"pad", pad}})});
  }
  // avg: dy / divisor spread uniformly over each window = conv2d_grad_input of a
  // ones kernel, one channel per (batch, channel) plane.
  const bool includePad = n.intAttr("count_include_pad") != 0;
  ir::Tensor inv(ir::TensorType{ir::DType::F32, {ys[2], ys[3]}});
  for (int64_t oy = 0; oy < ys[2]; ++oy)
    for (int64_t ox = 0; ox < ys[3]; ++ox) {
      auto extent = [&](int64_t o0, int64_t size, int64_t stride, int64_t kk, int64_t pb, int64_t pe) {
        const int64_t lo = o0 * stride - pb, hi = lo + kk;
        const int64_t from = includePad ? -pb : 0, to = includePad ? size + pe : size;
        return std::max<int64_t>(0, std::min(hi, to) - std::max(lo, from));
      };
      const int64_t cells = extent(oy, xs[2], w.strides[0], k[0], w.pads[0], w.pads[2]) *
                            extent(ox, xs[3], w.strides[1], k[1], w.pads[1], w.pads[3]);
      inv.data<float>()[oy * ys[3] + ox] = cells > 0 ? 1.0f / static_cast<float>(cells) : 0.0f;
    }
  ValueId scaled = padToPlain(o, o.mul(dy, e.constant("grad_inv_count", std::move(inv))), *plain);
  const int64_t planes = xs[0] * xs[1];
  ValueId dx = o.emit(OpKind::Conv2dGradInput,
                      {o.reshape(scaled, {planes, 1, (*plain)[0], (*plain)[1]}), e.filled("grad_ones", {1, 1, k[0], k[1]}, 1.0f)},
                      {{"stride", w.strides}, {"pad", pad}, {"input_shape", Shape{planes, 1, xs[2], xs[3]}}});
  return finish(o, {o.reshape(dx, xs)});
}

// Runs a rule written against Ops.
template <typename Rule>
Expected<Grads> withOps(const RuleArgs& a, Rule rule) {
  Ops o(a.e);
  return rule(o);
}

}  // namespace

Expected<Grads> GeneralGrads::Unary(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return unaryRule(o, a.node, a.dy); });
}
Expected<Grads> GeneralGrads::Binary(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return binaryRule(o, a.node, a.dy, a.need); });
}
Expected<Grads> GeneralGrads::Where(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return whereRule(o, a.node, a.dy, a.need); });
}
Expected<Grads> GeneralGrads::Cast(const RuleArgs& a) { return refuse(a.node, "is not differentiable (cast)"); }
Expected<Grads> GeneralGrads::Reduce(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return reduceRule(o, a.node, a.dy); });
}
Expected<Grads> GeneralGrads::Expand(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return finish(o, {o.sumTo(a.dy, o.shape(a.node.inputs[0]))}); });
}
Expected<Grads> GeneralGrads::Concat(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return concatRule(o, a.node, a.dy, a.need); });
}
Expected<Grads> GeneralGrads::Gather(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return gatherRule(o, a.e, a.node, a.dy); });
}
Expected<Grads> GeneralGrads::StridedSlice(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return stridedSliceRule(o, a.e, a.node, a.dy); });
}
Expected<Grads> GeneralGrads::Conv(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return convRule(o, a.node, a.dy, a.need); });
}
Expected<Grads> GeneralGrads::Pool(const RuleArgs& a) {
  return withOps(a, [&](Ops& o) { return poolRule(o, a.e, a.node, a.dy); });
}

}  // namespace dfc::autograd
