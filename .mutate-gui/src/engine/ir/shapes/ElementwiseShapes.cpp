// Shape rules of the elementwise, loss and optimizer families: outputs take
// the shape of an input, after checking that the operands agree.
#include "ir/ShapeRules.h"

namespace dfc::ir {
namespace {

OutputTypes sameAsInput(const ShapeArgs& a) { return std::vector{*a.in[0]}; }

OutputTypes sameShapes(const ShapeArgs& a) {
  DFC_TRY(a.requireSame(0, 1));
  return std::vector{*a.in[0]};
}

// (logits [N,C], labels i64 [N]); the loss is a scalar, its gradient has the logits' shape.
OutputTypes crossEntropy(const ShapeArgs& a, bool grad) {
  DFC_TRY(a.requireRank(0, 2));
  DFC_TRY(a.requireRank(1, 1));
  if (a.in[1]->dtype != DType::I64) return a.fail("labels must be i64");
  if (a.in[1]->shape[0] != a.in[0]->shape[0])
    return a.fail("batch of labels " + shapeStr(a.in[1]->shape) + " != batch of logits " + shapeStr(a.in[0]->shape));
  if (!grad) return std::vector{f32Type({})};
  return std::vector{*a.in[0]};
}

Status requireScalar(const ShapeArgs& a, size_t i, const char* what) {
  if (a.in[i]->numElements() != 1) return a.fail(std::string(what) + " must be a scalar");
  return {};
}

}  // namespace

OutputTypes ElementwiseShapes::Add(const ShapeArgs& a) { return sameShapes(a); }
OutputTypes ElementwiseShapes::Sub(const ShapeArgs& a) { return sameShapes(a); }
OutputTypes ElementwiseShapes::Mul(const ShapeArgs& a) { return sameShapes(a); }
OutputTypes ElementwiseShapes::Scale(const ShapeArgs& a) { return sameAsInput(a); }
OutputTypes ElementwiseShapes::Relu(const ShapeArgs& a) { return sameAsInput(a); }
OutputTypes ElementwiseShapes::ReluGrad(const ShapeArgs& a) { return sameShapes(a); }

OutputTypes ElementwiseShapes::BiasAdd(const ShapeArgs& a) {
  DFC_TRY(a.requireRank(1, 1));
  if (a.in[0]->rank() < 2 || a.in[0]->shape[1] != a.in[1]->shape[0])
    return a.fail("bias of shape " + shapeStr(a.in[1]->shape) + " does not match axis 1 of " + shapeStr(a.in[0]->shape));
  return std::vector{*a.in[0]};
}

OutputTypes LossShapes::Softmax(const ShapeArgs& a) { return sameAsInput(a); }
OutputTypes LossShapes::SoftmaxCrossEntropy(const ShapeArgs& a) { return crossEntropy(a, false); }
OutputTypes LossShapes::SoftmaxCrossEntropyGrad(const ShapeArgs& a) { return crossEntropy(a, true); }

OutputTypes OptimizerShapes::SgdUpdate(const ShapeArgs& a) {
  DFC_TRY(a.requireSame(0, 1));
  DFC_TRY(requireScalar(a, 2, "learning rate"));
  return std::vector{*a.in[0]};
}

OutputTypes OptimizerShapes::AdamUpdate(const ShapeArgs& a) {
  DFC_TRY(a.requireSame(0, 1));
  DFC_TRY(a.requireSame(0, 2));
  DFC_TRY(a.requireSame(0, 3));
  DFC_TRY(requireScalar(a, 4, "learning rate"));
  DFC_TRY(requireScalar(a, 5, "step"));
  return std::vector{*a.in[0], *a.in[0], *a.in[0]};
}

OutputTypes OptimizerShapes::MomentumUpdate(const ShapeArgs& a) {
  DFC_TRY(a.requireSame(0, 1));
  DFC_TRY(a.requireSame(0, 2));
  DFC_TRY(requireScalar(a, 3, "learning rate"));
  return std::vector{*a.in[0], *a.in[0]};
}

}  // namespace dfc::ir
