#include "autograd/ExtraRules.h"

namespace dfc::autograd {
namespace {

using ir::OpKind;
using ir::ValueId;
using Grads = std::vector<ValueId>;

Error noRule(const ir::Node& n, const std::string& why) {
  return makeError("autograd: " + std::string(ir::opName(n.op)) + " '" + n.name + "' " + why);
}

Expected<Grads> one(Expected<ValueId> v, size_t numInputs = 1) {
  if (!v) return v.error();
  Grads g(numInputs, ir::kNoValue);
  g[0] = *v;
  return g;
}

Expected<Grads> batchMatmulRule(GradientEmitter& e, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  ValueId a = n.inputs[0], b = n.inputs[1];
  const bool ta = n.intAttr("trans_a") != 0, tb = n.intAttr("trans_b") != 0;
  auto bmm = [&](ValueId x, ValueId y, bool tx, bool ty, const char* suffix) {
    return e.emit(OpKind::BatchMatMul, {x, y}, {{"trans_a", int64_t{tx}}, {"trans_b", int64_t{ty}}}, suffix);
  };
  Grads g(2, ir::kNoValue);
  // Per batch entry exactly the 2-D matmul rule.
  if (need[0]) {
    auto da = !ta ? bmm(dy, b, false, !tb, "grad_a") : (tb ? bmm(b, dy, true, true, "grad_a") : bmm(b, dy, false, true, "grad_a"));
    if (!da) return da.error();
    g[0] = *da;
  }
  if (need[1]) {
    auto db = !tb ? bmm(a, dy, !ta, false, "grad_b") : (ta ? bmm(dy, a, true, true, "grad_b") : bmm(dy, a, true, false, "grad_b"));
    if (!db) return db.error();
    g[1] = *db;
  }
  return g;
}

Expected<Grads> layerNormRule(GradientEmitter& e, const ir::Node& n, ValueId dy) {
  auto outs = e.emitMulti(OpKind::LayerNormGrad, {dy, n.inputs[0], n.inputs[1]},
                          {{"epsilon", n.floatAttr("epsilon", 1e-5)}}, "grad");
  if (!outs) return outs.error();
  return Grads{(*outs)[0], (*outs)[1], (*outs)[2]};
}

}  // namespace

Expected<Grads> applyExtraRule(GradientEmitter& e, const ir::Node& n, ValueId dy, const std::vector<bool>& need) {
  switch (n.op) {
    case OpKind::Transpose: {
      auto perm = n.intsAttr("perm");
      std::vector<int64_t> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
      return one(e.emit(OpKind::Transpose, {dy}, {{"perm", inverse}}, "grad"));
    }
    case OpKind::Slice:
      return one(e.emit(OpKind::SliceGrad, {dy},
                        {{"axis", n.intAttr("axis")},
                         {"start", n.intAttr("start")},
                         {"input_shape", e.graph().value(n.inputs[0]).type.shape}},
                        "grad"));
    case OpKind::BatchMatMul:
      return batchMatmulRule(e, n, dy, need);
    case OpKind::Softmax:
      return one(e.emit(OpKind::SoftmaxGrad, {dy, n.outputs[0]}, {}, "grad"));
    case OpKind::Gelu:
      return one(e.emit(OpKind::GeluGrad, {dy, n.inputs[0]}, {}, "grad"));
    case OpKind::CausalMask:
      // Masked positions are constants: their gradient is zero.
      return one(e.emit(OpKind::CausalMask, {dy}, {{"fill", 0.0}}, "grad"));
    case OpKind::LayerNorm:
      return layerNormRule(e, n, dy);
    case OpKind::Embedding:
      return one(e.emit(OpKind::EmbeddingGrad, {dy, n.inputs[1]},
                        {{"num_embeddings", e.graph().value(n.inputs[0]).type.shape[0]}}, "grad"),
                 2);
    case OpKind::BatchNorm: {
      auto outs = e.emitMulti(OpKind::BatchNormGrad, {dy, n.inputs[0], n.inputs[1]},
                              {{"epsilon", n.floatAttr("epsilon", 1e-5)}}, "grad");
      if (!outs) return outs.error();
      return Grads{(*outs)[0], (*outs)[1], (*outs)[2]};
    }
    case OpKind::GlobalAvgPool:
      return one(e.emit(OpKind::GlobalAvgPoolGrad, {dy}, {{"input_shape", e.graph().value(n.inputs[0]).type.shape}},
                        "grad"));
    default:
      return noRule(n, "has no gradient rule");
  }
}

}  // namespace dfc::autograd
