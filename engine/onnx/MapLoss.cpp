// Loss ops: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. Both are
// composed from a one-hot mask of the target (equal against 0..C-1), so they
// need no gather kernel and their gradients come from the ops they are made of.
#include <numeric>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

Expected<ValueId> reduceSum(ImportContext& c, ValueId x, std::vector<int64_t> axes, bool keepdims) {
  return c.emit(OpKind::Reduce, {x}, {{"fn", std::string("sum")}, {"axes", std::move(axes)},
                                      {"keepdims", int64_t{keepdims ? 1 : 0}}});
}

// [1, C, 1, ...] (rank of the input): 0..C-1 along the class axis.
ValueId classIndices(ImportContext& c, int64_t classes, size_t rank) {
  Shape shape(rank, 1);
  shape[1] = classes;
  ir::Tensor t(ir::TensorType{DType::I64, shape});
  std::iota(t.data<int64_t>(), t.data<int64_t>() + classes, int64_t{0});
  return c.constant(std::move(t), "class_index");
}

// -logp[n, target[n, d...], d...] weighted, ignore_index dropped, reduced.
Expected<ValueId> negativeLogLikelihood(ImportContext& c, ValueId logp, ValueId target, ValueId weight) {
  DFC_TRY(needFloat(c, logp));
  const Shape s = c.shape(logp);
  if (s.size() < 2) return c.error("needs an input [N, C, D1, ...] of rank >= 2");
  Shape targetShape = s;
  targetShape.erase(targetShape.begin() + 1);
  if (c.shape(target) != targetShape)
    return c.error("target is " + c.type(target).toString() + ", expected shape of the input without its class axis");
  const DType tdt = c.type(target).dtype;
  if (tdt != DType::I64 && tdt != DType::I32)
    return c.error("target must be int32 or int64, not " + std::string(ir::dtypeName(tdt)));
  if (tdt == DType::I32) {
    DFC_TRY_ASSIGN(t64, c.cast(target, DType::I64));
    target = t64;
  }
  Shape withClassAxis = s;
  withClassAxis[1] = 1;
  DFC_TRY_ASSIGN(target1, c.reshape(target, withClassAxis));
  DFC_TRY_ASSIGN(isClass, c.binary("equal", target1, classIndices(c, s[1], s.size())));
  DFC_TRY_ASSIGN(oneHot, c.cast(isClass, DType::F32));
  ValueId w = oneHot;  // [N, C, ...]: the target's weight at its class, 0 elsewhere
  if (weight != ir::kNoValue) {
    DFC_TRY(needFloat(c, weight));
    if (c.shape(weight) != Shape{s[1]}) return c.error("weight must be [C] = [" + std::to_string(s[1]) + "]");
    Shape wShape(s.size(), 1);
    wShape[1] = s[1];
    DFC_TRY_ASSIGN(w1, c.reshape(weight, wShape));
    DFC_TRY_ASSIGN(ww, c.binary("mul", oneHot, w1));
    w = ww;
  }
  DFC_TRY_ASSIGN(picked, c.binary("mul", logp, w));
  DFC_TRY_ASSIGN(pickedSum, reduceSum(c, picked, {1}, false));
  DFC_TRY_ASSIGN(loss, c.unary("neg", pickedSum));
  DFC_TRY_ASSIGN(weightOf, reduceSum(c, w, {1}, false));  // [N, D...]
  if (const auto* ii = c.attr("ignore_index")) {
    ir::Tensor ignored(ir::TensorType{DType::I64, {}});
    ignored.data<int64_t>()[0] = ii->i();
    DFC_TRY_ASSIGN(isIgnored, c.binary("equal", target, c.constant(std::move(ignored), "ignore_index")));
    DFC_TRY_ASSIGN(ignoredF, c.cast(isIgnored, DType::F32));
    DFC_TRY_ASSIGN(keep, c.binary("sub", c.scalarF32(1.0f), ignoredF));
    DFC_TRY_ASSIGN(keptLoss, c.binary("mul", loss, keep));
    DFC_TRY_ASSIGN(keptWeight, c.binary("mul", weightOf, keep));
    loss = keptLoss;
    weightOf = keptWeight;
  }
  const std::string reduction = c.attrString("reduction", "mean");
  if (reduction == "none") return loss;
  std::vector<int64_t> all(targetShape.size());
  std::iota(all.begin(), all.end(), int64_t{0});
  DFC_TRY_ASSIGN(total, reduceSum(c, loss, all, false));
  if (reduction == "sum") return total;
  if (reduction != "mean") return c.error("reduction '" + reduction + "' is not one of none, sum, mean");
  DFC_TRY_ASSIGN(totalWeight, reduceSum(c, weightOf, all, false));
  return c.binary("div", total, totalWeight);
}

Status mapNllLoss(ImportContext& c) {
  DFC_TRY_ASSIGN(logp, c.requireInput(0));
  DFC_TRY_ASSIGN(target, c.requireInput(1));
  DFC_TRY_ASSIGN(loss, negativeLogLikelihood(c, logp, target, c.input(2)));
  c.setOutput(0, loss);
  return {};
}

// loss = NLL(log_softmax(scores, axis 1)); output 1 is that log-probability.
Status mapSoftmaxCrossEntropyLoss(ImportContext& c) {
  DFC_TRY_ASSIGN(scores, c.requireInput(0));
  DFC_TRY_ASSIGN(target, c.requireInput(1));
  DFC_TRY(needFloat(c, scores));
  if (c.rank(scores) < 2) return c.error("needs scores [N, C, D1, ...] of rank >= 2");
  const ir::Attributes overClasses{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}};
  ir::Attributes maxAttrs = overClasses, lseAttrs = overClasses;
  maxAttrs["fn"] = std::string("max");
  lseAttrs["fn"] = std::string("log_sum_exp");
  DFC_TRY_ASSIGN(mx, c.emit(OpKind::Reduce, {scores}, maxAttrs));
  DFC_TRY_ASSIGN(shifted, c.binary("sub", scores, mx));
  DFC_TRY_ASSIGN(lse, c.emit(OpKind::Reduce, {shifted}, lseAttrs));
  DFC_TRY_ASSIGN(logp, c.binary("sub", shifted, lse));
  DFC_TRY_ASSIGN(loss, negativeLogLikelihood(c, logp, target, c.input(2)));
  c.setOutput(0, loss);
  if (c.outputWanted(1)) c.setOutput(1, logp);
  return {};
}

}  // namespace

void registerLossOps(OpTable& t) {
  t["NegativeLogLikelihoodLoss"] = mapNllLoss;
  t["SoftmaxCrossEntropyLoss"] = mapSoftmaxCrossEntropyLoss;
}

}  // namespace dfc::onnx
