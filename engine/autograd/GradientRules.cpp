#include "autograd/GradientRules.h"

#include "autograd/ExtraRules.h"
#include "autograd/GeneralRules.h"

#include <algorithm>
#include <numeric>

namespace dfc::autograd {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;
using Grads = std::vector<ValueId>;

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

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

Error noRule(const ir::Node& n, const std::string& why) {
  return makeError("autograd: " + std::string(ir::opName(n.op)) + " '" + n.name + "' " + why);
}

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
    int64_t m = product(xs, 0, rank - count), k = product(xs, rank - count, rank);
    auto t = h.tileCols(dy, m, k, "grad_tile");
    if (!t) return t.error();
    dx = h.reshape(*t, xs, "grad");
  } else if (isRange(0)) {  // leading axes
    int64_t k = product(xs, 0, count), m = product(xs, count, rank);
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

}  // namespace

Expected<Grads> applyGradientRule(GradientEmitter& e, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  RuleHelper h(e);
  auto one = [](Expected<ValueId> v) -> Expected<Grads> {
    if (!v) return v.error();
    return Grads{*v};
  };
  switch (n.op) {
    case OpKind::Add:
      return Grads{dy, dy};
    case OpKind::Sub: {
      Grads g{dy, ir::kNoValue};
      if (need[1]) {
        auto neg = e.emit(OpKind::Scale, {dy}, {{"alpha", -1.0}}, "grad_b");
        if (!neg) return neg.error();
        g[1] = *neg;
      }
      return g;
    }
    case OpKind::Mul: {
      Grads g(2, ir::kNoValue);
      for (size_t i = 0; i < 2; ++i) {
        if (!need[i]) continue;
        auto gi = e.emit(OpKind::Mul, {dy, n.inputs[1 - i]}, {}, i == 0 ? "grad_a" : "grad_b");
        if (!gi) return gi.error();
        g[i] = *gi;
      }
      return g;
    }
    case OpKind::Scale:
      return one(e.emit(OpKind::Scale, {dy}, {{"alpha", n.floatAttr("alpha", 1.0)}}, "grad"));
    case OpKind::BiasAdd: {
      Grads g{dy, ir::kNoValue};
      if (need[1]) {
        std::vector<int64_t> axes;
        for (size_t d = 0; d < h.shape(dy).size(); ++d)
          if (d != 1) axes.push_back(static_cast<int64_t>(d));
        auto db = e.emit(OpKind::ReduceSum, {dy}, {{"axes", axes}, {"keepdims", int64_t{0}}}, "grad_bias");
        if (!db) return db.error();
        g[1] = *db;
      }
      return g;
    }
    case OpKind::Relu:
      return one(e.emit(OpKind::ReluGrad, {dy, n.inputs[0]}, {}, "grad"));
    case OpKind::MatMul:
      return matmulRule(h, n, dy, need);
    case OpKind::Conv2d: {
      Grads g(2, ir::kNoValue);
      ir::Attributes common{{"stride", n.intsAttr("stride")}, {"pad", n.intsAttr("pad")}};
      if (need[0]) {
        ir::Attributes a = common;
        a["input_shape"] = h.shape(n.inputs[0]);
        auto dx = e.emit(OpKind::Conv2dGradInput, {dy, n.inputs[1]}, std::move(a), "grad_input");
        if (!dx) return dx.error();
        g[0] = *dx;
      }
      if (need[1]) {
        ir::Attributes a = common;
        a["weight_shape"] = h.shape(n.inputs[1]);
        auto dw = e.emit(OpKind::Conv2dGradWeight, {dy, n.inputs[0]}, std::move(a), "grad_weight");
        if (!dw) return dw.error();
        g[1] = *dw;
      }
      return g;
    }
    case OpKind::MaxPool2d:
    {
      ir::Attributes a{{"kernel", n.intsAttr("kernel")}, {"stride", n.intsAttr("stride")}};
      if (n.attrs.count("pad")) a["pad"] = n.intsAttr("pad");
      return one(e.emit(OpKind::MaxPool2dGrad, {dy, n.inputs[0]}, std::move(a), "grad"));
    }
    case OpKind::Reshape:
      return one(h.reshape(dy, h.shape(n.inputs[0]), "grad"));
    case OpKind::ReduceSum:
      return reduceSumRule(h, e, n, dy);
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::BatchMatMul:
    case OpKind::Softmax:  // one softmax_grad node (was a reshape/reduce/matmul chain)
    case OpKind::Gelu:
    case OpKind::CausalMask:
    case OpKind::LayerNorm:
    case OpKind::Embedding:
    case OpKind::BatchNorm:
    case OpKind::GlobalAvgPool:
      return applyExtraRule(e, n, dy, need);
    case OpKind::SoftmaxCrossEntropy:
      return crossEntropyRule(h, e, n, dy);
    case OpKind::ReluGrad:
    case OpKind::Conv2dGradInput:
    case OpKind::Conv2dGradWeight:
    case OpKind::MaxPool2dGrad:
    case OpKind::SoftmaxCrossEntropyGrad:
    case OpKind::SliceGrad:
    case OpKind::SoftmaxGrad:
    case OpKind::GeluGrad:
    case OpKind::LayerNormGrad:
    case OpKind::EmbeddingGrad:
    case OpKind::BatchNormGrad:
    case OpKind::GlobalAvgPoolGrad:
    case OpKind::AdamUpdate:
    case OpKind::SgdUpdate:
    case OpKind::MomentumUpdate:
      return noRule(n, "has no gradient rule (second-order and optimizer ops are not differentiable here)");
    case OpKind::Linear:
      return noRule(n, "is a composite without a gradient rule (run the decompose-composites pass before autograd)");    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Where:
    case OpKind::Cast:
    case OpKind::Reduce:
    case OpKind::Expand:
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::StridedSlice:
    case OpKind::Conv:
    case OpKind::Pool:
      return applyGeneralRule(e, n, dy, need);
  }
  return noRule(n, "has no gradient rule");
}

}  // namespace dfc::autograd
