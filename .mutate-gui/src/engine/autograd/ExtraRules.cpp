// Gradient rules of the convolution, pooling, normalization and transformer
// families (GradientFamilies.h).
#include "autograd/GradientFamilies.h"

namespace dfc::autograd {
namespace {

using ir::OpKind;
using ir::ValueId;

Expected<Grads> one(Expected<ValueId> v, size_t numInputs = 1) {
  if (!v) return v.error();
  Grads g(numInputs, ir::kNoValue);
  g[0] = *v;
  return g;
}

// The *_norm_grad ops give (dx, dgamma, dbeta) in one node.
Expected<Grads> normRule(const RuleArgs& a, OpKind grad) {
  auto outs = a.e.emitMulti(grad, {a.dy, a.node.inputs[0], a.node.inputs[1]},
                            {{"epsilon", a.node.floatAttr("epsilon", 1e-5)}}, "grad");
  if (!outs) return outs.error();
  Grads g(a.node.inputs.size(), ir::kNoValue);  // batch_norm's running statistics (inputs 3, 4) get none
  for (size_t i = 0; i < 3; ++i) g[i] = (*outs)[i];
  return g;
}

const ir::Shape& shapeOf(const RuleArgs& a, ValueId v) { return a.e.graph().value(v).type.shape; }

}  // namespace

Expected<Grads> ConvGrads::Conv2d(const RuleArgs& a) {
  const ir::Node& n = a.node;
  Grads g(2, ir::kNoValue);
  ir::Attributes common{{"stride", n.intsAttr("stride")}, {"pad", n.intsAttr("pad")}};
  if (a.need[0]) {
    ir::Attributes attrs = common;
    attrs["input_shape"] = shapeOf(a, n.inputs[0]);
    auto dx = a.e.emit(OpKind::Conv2dGradInput, {a.dy, n.inputs[1]}, std::move(attrs), "grad_input");
    if (!dx) return dx.error();
    g[0] = *dx;
  }
  if (a.need[1]) {
    ir::Attributes attrs = common;
    attrs["weight_shape"] = shapeOf(a, n.inputs[1]);
    auto dw = a.e.emit(OpKind::Conv2dGradWeight, {a.dy, n.inputs[0]}, std::move(attrs), "grad_weight");
    if (!dw) return dw.error();
    g[1] = *dw;
  }
  return g;
}

// y = conv2d_grad_input(g, w) is the transpose of x -> conv2d(x, w), so
// <dy, y> = <conv2d(dy, w), g>: dg = conv2d(dy, w), dw = conv2d_grad_weight(g, dy).
Expected<Grads> ConvGrads::Conv2dGradInput(const RuleArgs& a) {
  const ir::Node& n = a.node;
  Grads g(2, ir::kNoValue);
  ir::Attributes common{{"stride", n.intsAttr("stride")}, {"pad", n.intsAttr("pad")}};
  if (a.need[0]) {
    auto dg = a.e.emit(OpKind::Conv2d, {a.dy, n.inputs[1]}, common, "grad_input");
    if (!dg) return dg.error();
    if (shapeOf(a, *dg) != shapeOf(a, n.inputs[0]))
      return makeError("autograd: conv2d_grad_input '" + n.name + "' has no gradient rule when its output padding " +
                       "adds rows or columns the forward convolution does not reach");
    g[0] = *dg;
  }
  if (a.need[1]) {
    ir::Attributes attrs = common;
    attrs["weight_shape"] = shapeOf(a, n.inputs[1]);
    auto dw = a.e.emit(OpKind::Conv2dGradWeight, {n.inputs[0], a.dy}, std::move(attrs), "grad_weight");
    if (!dw) return dw.error();
    g[1] = *dw;
  }
  return g;
}

Expected<Grads> PoolGrads::MaxPool2d(const RuleArgs& a) {
  const ir::Node& n = a.node;
  ir::Attributes attrs{{"kernel", n.intsAttr("kernel")}, {"stride", n.intsAttr("stride")}};
  if (n.attrs.count("pad")) attrs["pad"] = n.intsAttr("pad");
  return one(a.e.emit(OpKind::MaxPool2dGrad, {a.dy, n.inputs[0]}, std::move(attrs), "grad"));
}

Expected<Grads> PoolGrads::GlobalAvgPool(const RuleArgs& a) {
  return one(a.e.emit(OpKind::GlobalAvgPoolGrad, {a.dy}, {{"input_shape", shapeOf(a, a.node.inputs[0])}}, "grad"));
}

Expected<Grads> NormGrads::BatchNorm(const RuleArgs& a) { return normRule(a, OpKind::BatchNormGrad); }
Expected<Grads> NormGrads::LayerNorm(const RuleArgs& a) { return normRule(a, OpKind::LayerNormGrad); }

Expected<Grads> TransformerGrads::Gelu(const RuleArgs& a) {
  return one(a.e.emit(OpKind::GeluGrad, {a.dy, a.node.inputs[0]}, {}, "grad"));
}

// Masked positions are constants: their gradient is zero.
Expected<Grads> TransformerGrads::CausalMask(const RuleArgs& a) {
  return one(a.e.emit(OpKind::CausalMask, {a.dy}, {{"fill", 0.0}}, "grad"));
}

Expected<Grads> TransformerGrads::Embedding(const RuleArgs& a) {
  return one(a.e.emit(OpKind::EmbeddingGrad, {a.dy, a.node.inputs[1]},
                      {{"num_embeddings", shapeOf(a, a.node.inputs[0])[0]}}, "grad"),
             2);
}

}  // namespace dfc::autograd
