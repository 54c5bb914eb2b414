// Shape rules of the transformer family: GELU, softmax's gradient, the
// causal mask and embedding lookups.
#include <algorithm>

#include "ir/ShapeRules.h"

namespace dfc::ir {

OutputTypes TransformerShapes::SoftmaxGrad(const ShapeArgs& a) {
  DFC_TRY(a.requireSame(0, 1));
  return std::vector{*a.in[0]};
}

OutputTypes TransformerShapes::Gelu(const ShapeArgs& a) { return std::vector{*a.in[0]}; }
OutputTypes TransformerShapes::GeluGrad(const ShapeArgs& a) { return SoftmaxGrad(a); }

OutputTypes TransformerShapes::CausalMask(const ShapeArgs& a) {
  const Shape& x = a.in[0]->shape;
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) return a.fail("needs [..., T, T], got " + shapeStr(x));
  return std::vector{*a.in[0]};
}

OutputTypes TransformerShapes::Embedding(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(0, 2));
  if (a.in[1]->dtype != DType::I64) return a.fail("ids must be i64");
  Shape out = a.in[1]->shape;
  out.push_back(a.in[0]->shape[1]);
  return std::vector{f32Type(out)};
}

OutputTypes TransformerShapes::EmbeddingGrad(const ShapeArgs& a) {
  if (a.in[1]->dtype != DType::I64) return a.fail("ids must be i64");
  const Shape &dy = a.in[0]->shape, &ids = a.in[1]->shape;
  if (dy.size() != ids.size() + 1 || !std::equal(ids.begin(), ids.end(), dy.begin()))
    return a.fail("dy " + shapeStr(dy) + " does not match ids " + shapeStr(ids) + " plus a feature axis");
  int64_t v = a.node.intAttr("num_embeddings");
  if (v <= 0) return a.fail("needs a positive num_embeddings");
  return std::vector{f32Type({v, dy.back()})};
}

}  // namespace dfc::ir
