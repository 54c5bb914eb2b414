// Gradient rules of the elementwise, linear-algebra, layout, loss and
// optimizer families, and the dispatch table generated from Ops.def.
#include "autograd/GradientRules.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include "autograd/GradientFamilies.h"
#include "ir/ShapeProduct.h"

namespace dfc::autograd {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;

bool isConstOne(const ir::Graph& g, ValueId v) {
  if (g.value(v).kind != ir::ValueKind::Const) return false;
  auto it = g.initializers.find(v);
  if (it == g.initializers.end() || it->second.dtype() != ir::DType::F32) return false;
  if (const ir::InitRecipe* r = it->second.recipe())
    return r->kind == ir::InitRecipe::Kind::Fill && r->value == 1.0;
  auto data = it->second.span<float>();
  return std::all_of(data.begin(), data.end(), [](float x) { return x == 1.0f; });
}

// Helpers for the rules; the ops have no broadcasting, so broadcasts are
// matmuls against a ones vector (an outer product).
class RuleHelper {
 public:
  explicit RuleHelper(GradientEmitter& e) : m_e(e) {}

  const Shape& shape(ValueId v) { return m_e.graph().value(v).type.shape; }

  Expected<ValueId> reshape(ValueId v, Shape to, const std::string& suffix) {
    if (shape(v) == to) return v;
    return m_e.emit(OpKind::Reshape, {v}, {{"shape", std::move(to)}}, suffix);
  }

  Expected<ValueId> matmul(ValueId a, ValueId b, bool ta, bool tb, const std::string& suffix) {
    return m_e.emit(OpKind::MatMul, {a, b}, {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}, suffix);
  }

  // v (m elements) -> [m, k], each element repeated along a row.
  Expected<ValueId> tileCols(ValueId v, int64_t m, int64_t k, const std::string& suffix) {
    auto col = reshape(v, {m, 1}, suffix + "_col");
    if (!col) return col.error();
    return matmul(*col, m_e.filled(suffix + "_ones", {1, k}, 1.0f), false, false, suffix);
  }

  // v (m elements) -> [k, m], v repeated as k rows.
  Expected<ValueId> tileRows(ValueId v, int64_t k, int64_t m, const std::string& suffix) {
    auto row = reshape(v, {1, m}, suffix + "_row");
    if (!row) return row.error();
    return matmul(m_e.filled(suffix + "_ones", {k, 1}, 1.0f), *row, false, false, suffix);
  }

 private:
  GradientEmitter& m_e;
};

Expected<Grads> matmulRule(RuleHelper& h, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId a = n.inputs[0], b = n.inputs[1];
  bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
  Grads g(2, ir::kNoValue);
  // y = op(A) op(B). For each combination, dA and dB are again single matmuls.
  if (need[0]) {
    Expected<ValueId> da = !ta ? h.matmul(dy, b, false, !tb, "grad_a")  // dY op(B)^T
                               : (tb ? h.matmul(b, dy, true, true, "grad_a")     // (dY B)^T = B^T dY^T
                                     : h.matmul(b, dy, false, true, "grad_a"));  // B dY^T
    if (!da) return da.error();
    g[0] = *da;
  }
  if (need[1]) {
    Expected<ValueId> db = !tb ? h.matmul(a, dy, !ta, false, "grad_b")  // op(A)^T dY
                               : (ta ? h.matmul(dy, a, true, true, "grad_b")     // dY^T A^T
                                     : h.matmul(dy, a, true, false, "grad_b"));  // dY^T A
    if (!db) return db.error();
    g[1] = *db;
  }
  return g;
}

Expected<Grads> reduceSumRule(RuleHelper& h, GradientEmitter& e, const ir::Node& n, ValueId dy) {
  const Shape xs = h.shape(n.inputs[0]);
  std::vector<int64_t> axes = n.intsAttr("axes");
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  const size_t rank = xs.size(), count = axes.size();
  auto isRange = [&](size_t from) {
    for (size_t i = 0; i < count; ++i)
      if (axes[i] != static_cast<int64_t>(from + i)) return false;
    return true;
  };
  Expected<ValueId> dx = ir::kNoValue;
  if (count == 0) {
    dx = h.reshape(dy, xs, "grad");
  } else if (isRange(rank - count)) {  // trailing axes (also: all axes)
    int64_t m = ir::dimProduct(xs, 0, rank - count), k = ir::dimProduct(xs, rank - count, rank);
    auto t = h.tileCols(dy, m, k, "grad_tile");
    if (!t) return t.error();
    dx = h.reshape(*t, xs, "grad");
  } else if (isRange(0)) {  // leading axes
    int64_t k = ir::dimProduct(xs, 0, count), m = ir::dimProduct(xs, count, rank);
    auto t = h.tileRows(dy, k, m, "grad_tile");
    if (!t) return t.error();
    dx = h.reshape(*t, xs, "grad");
  } else if (rank >= 2 && count == rank - 1 && !std::binary_search(axes.begin(), axes.end(), int64_t{1})) {
    // All axes but 1: the bias-gradient pattern, broadcast back with bias_add.
    auto c = h.reshape(dy, {xs[1]}, "grad_vec");
    if (!c) return c.error();
    dx = e.emit(OpKind::BiasAdd, {e.filled("grad_zeros", xs, 0.0f), *c}, {}, "grad");
  } else {
    return noRule(n, "has no gradient rule for these axes (only leading, trailing or all-but-1 axes)");
  }
  if (!dx) return dx.error();
  return Grads{*dx};
}

Expected<Grads> crossEntropyRule(RuleHelper& h, GradientEmitter& e, const ir::Node& n, ValueId dy) {
  auto g = e.emit(OpKind::SoftmaxCrossEntropyGrad, {n.inputs[0], n.inputs[1]}, {}, "grad");
  if (!g) return g.error();
  // softmax_cross_entropy_grad assumes an upstream gradient of 1 (the loss is
  // the target); any other seed scales it, broadcast to [N, C].
  if (isConstOne(e.graph(), dy)) return Grads{*g, ir::kNoValue};
  const Shape ls = h.shape(n.inputs[0]);
  auto t = h.tileRows(dy, ls[0] * ls[1], 1, "grad_scale");
  if (!t) return t.error();
  auto tb = h.reshape(*t, ls, "grad_scale_b");
  if (!tb) return tb.error();
  auto dx = e.emit(OpKind::Mul, {*g, *tb}, {}, "grad_scaled");
  if (!dx) return dx.error();
  return Grads{*dx, ir::kNoValue};
}

Expected<Grads> one(Expected<ValueId> v) {
  if (!v) return v.error();
  return Grads{*v};
}

constexpr GradRule kRules[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) family##Grads::Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

}  // namespace

Expected<Grads> ElementwiseGrads::Add(const RuleArgs& a) { return Grads{a.dy, a.dy}; }

Expected<Grads> ElementwiseGrads::Sub(const RuleArgs& a) {
  Grads g{a.dy, ir::kNoValue};
  if (a.need[1]) {
    auto neg = a.e.emit(OpKind::Scale, {a.dy}, {{"alpha", -1.0}}, "grad_b");
    if (!neg) return neg.error();
    g[1] = *neg;
  }
  return g;
}

Expected<Grads> ElementwiseGrads::Mul(const RuleArgs& a) {
  Grads g(2, ir::kNoValue);
  for (size_t i = 0; i < 2; ++i) {
    if (!a.need[i]) continue;
    auto gi = a.e.emit(OpKind::Mul, {a.dy, a.node.inputs[1 - i]}, {}, i == 0 ? "grad_a" : "grad_b");
    if (!gi) return gi.error();
    g[i] = *gi;
  }
  return g;
}

Expected<Grads> ElementwiseGrads::Scale(const RuleArgs& a) {
  return one(a.e.emit(OpKind::Scale, {a.dy}, {{"alpha", a.node.floatAttr("alpha", 1.0)}}, "grad"));
}

Expected<Grads> ElementwiseGrads::BiasAdd(const RuleArgs& a) {
  Grads g{a.dy, ir::kNoValue};
  if (a.need[1]) {
    std::vector<int64_t> axes;
    for (size_t d = 0; d < a.e.graph().value(a.dy).type.shape.size(); ++d)
      if (d != 1) axes.push_back(static_cast<int64_t>(d));
    auto db = a.e.emit(OpKind::ReduceSum, {a.dy}, {{"axes", axes}, {"keepdims", int64_t{0}}}, "grad_bias");
    if (!db) return db.error();
    g[1] = *db;
  }
  return g;
}

Expected<Grads> ElementwiseGrads::Relu(const RuleArgs& a) {
  return one(a.e.emit(OpKind::ReluGrad, {a.dy, a.node.inputs[0]}, {}, "grad"));
}

Expected<Grads> LinalgGrads::MatMul(const RuleArgs& a) {
  RuleHelper h(a.e);
  return matmulRule(h, a.node, a.dy, a.need);
}

Expected<Grads> LinalgGrads::Linear(const RuleArgs& a) {
  return noRule(a.node, "is a composite without a gradient rule (run the decompose-composites pass before autograd)");
}

// Per batch entry exactly the 2-D matmul rule.
Expected<Grads> LinalgGrads::BatchMatMul(const RuleArgs& r) {
  const ir::Node& n = r.node;
  ValueId a = n.inputs[0], b = n.inputs[1], dy = r.dy;
  const bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
  auto bmm = [&](ValueId x, ValueId y, bool tx, bool ty, const char* suffix) {
    return r.e.emit(OpKind::BatchMatMul, {x, y}, {{"trans_a", int64_t{tx}}, {"trans_b", int64_t{ty}}}, suffix);
  };
  Grads g(2, ir::kNoValue);
  if (r.need[0]) {
    auto da = !ta ? bmm(dy, b, false, !tb, "grad_a") : (tb ? bmm(b, dy, true, true, "grad_a") : bmm(b, dy, false, true, "grad_a"));
    if (!da) return da.error();
    g[0] = *da;
  }
  if (r.need[1]) {
    auto db = !tb ? bmm(a, dy, !ta, false, "grad_b") : (ta ? bmm(dy, a, true, true, "grad_b") : bmm(dy, a, true, false, "grad_b"));
    if (!db) return db.error();
    g[1] = *db;
  }
  return g;
}

Expected<Grads> LayoutGrads::Reshape(const RuleArgs& a) {
  RuleHelper h(a.e);
  return one(h.reshape(a.dy, h.shape(a.node.inputs[0]), "grad"));
}

Expected<Grads> LayoutGrads::ReduceSum(const RuleArgs& a) {
  RuleHelper h(a.e);
  return reduceSumRule(h, a.e, a.node, a.dy);
}

Expected<Grads> LayoutGrads::Transpose(const RuleArgs& a) {
  auto perm = a.node.intsAttr("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return one(a.e.emit(OpKind::Transpose, {a.dy}, {{"perm", inverse}}, "grad"));
}

Expected<Grads> LayoutGrads::Slice(const RuleArgs& a) {
  return one(a.e.emit(OpKind::SliceGrad, {a.dy},
                      {{"axis", a.node.intAttr("axis")},
                       {"start", a.node.intAttr("start")},
                       {"input_shape", a.e.graph().value(a.node.inputs[0]).type.shape}},
                      "grad"));
}

// One softmax_grad node (was a reshape/reduce/matmul chain).
Expected<Grads> LossGrads::Softmax(const RuleArgs& a) {
  return one(a.e.emit(OpKind::SoftmaxGrad, {a.dy, a.node.outputs[0]}, {}, "grad"));
}

Expected<Grads> LossGrads::SoftmaxCrossEntropy(const RuleArgs& a) {
  RuleHelper h(a.e);
  return crossEntropyRule(h, a.e, a.node, a.dy);
}

Expected<Grads> applyGradientRule(GradientEmitter& e, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  const size_t op = static_cast<size_t>(n.op);
  if (op >= std::size(kRules)) return noRule(n, "has an unknown op");
  return kRules[op](RuleArgs{e, n, dy, need});
}

}  // namespace dfc::autograd
