#pragma once
// Internal to autograd: one gradient rule per op, grouped by the family
// column of Ops.def. The table in GradientRules.cpp is generated from Ops.def
// and names <Family>Grads::<Op> for every op, so an op added there without a
// rule (or an explicit refusal) here does not compile. Same contract as
// applyGradientRule. (Member names are the OpKind enumerators, hence PascalCase.)
#include <string>
#include <vector>

#include "autograd/GradientEmitter.h"

namespace dfc::autograd {

using Grads = std::vector<ir::ValueId>;

// A forward node, the gradient of its (first) output, and which inputs need one.
struct RuleArgs {
  GradientEmitter& e;
  const ir::Node& node;
  ir::ValueId dy;
  const std::vector<bool>& need;
};

using GradRule = Expected<Grads> (*)(const RuleArgs&);

// "autograd: <op> '<node>' <why>"
inline Error noRule(const ir::Node& n, const std::string& why) {
  return makeError("autograd: " + std::string(ir::opName(n.op)) + " '" + n.name + "' " + why);
}
// The rule of the *_grad and optimizer ops.
inline Expected<Grads> notDifferentiable(const RuleArgs& a) {
  return noRule(a.node, "has no gradient rule (second-order and optimizer ops are not differentiable here)");
}

// GradientRules.cpp
struct ElementwiseGrads {
  static Expected<Grads> Add(const RuleArgs& a);
  static Expected<Grads> Sub(const RuleArgs& a);
  static Expected<Grads> Mul(const RuleArgs& a);
  static Expected<Grads> Scale(const RuleArgs& a);
  static Expected<Grads> BiasAdd(const RuleArgs& a);
  static Expected<Grads> Relu(const RuleArgs& a);
  static Expected<Grads> ReluGrad(const RuleArgs& a) { return notDifferentiable(a); }
};
struct LinalgGrads {
  static Expected<Grads> MatMul(const RuleArgs& a);
  static Expected<Grads> Linear(const RuleArgs& a);
  static Expected<Grads> BatchMatMul(const RuleArgs& a);
};
struct LayoutGrads {
  static Expected<Grads> Reshape(const RuleArgs& a);
  static Expected<Grads> ReduceSum(const RuleArgs& a);
  static Expected<Grads> Transpose(const RuleArgs& a);
  static Expected<Grads> Slice(const RuleArgs& a);
  static Expected<Grads> SliceGrad(const RuleArgs& a) { return notDifferentiable(a); }
};
struct LossGrads {
  static Expected<Grads> Softmax(const RuleArgs& a);
  static Expected<Grads> SoftmaxCrossEntropy(const RuleArgs& a);
  static Expected<Grads> SoftmaxCrossEntropyGrad(const RuleArgs& a) { return notDifferentiable(a); }
};
struct OptimizerGrads {
  static Expected<Grads> SgdUpdate(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> AdamUpdate(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> MomentumUpdate(const RuleArgs& a) { return notDifferentiable(a); }
};

// ExtraRules.cpp
struct ConvGrads {
  static Expected<Grads> Conv2d(const RuleArgs& a);
  static Expected<Grads> Conv2dGradInput(const RuleArgs& a);  // transposed convolution
  static Expected<Grads> Conv2dGradWeight(const RuleArgs& a) { return notDifferentiable(a); }
};
struct PoolGrads {
  static Expected<Grads> MaxPool2d(const RuleArgs& a);
  static Expected<Grads> MaxPool2dGrad(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> GlobalAvgPool(const RuleArgs& a);
  static Expected<Grads> GlobalAvgPoolGrad(const RuleArgs& a) { return notDifferentiable(a); }
};
struct NormGrads {
  static Expected<Grads> BatchNorm(const RuleArgs& a);
  static Expected<Grads> BatchNormGrad(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> LayerNorm(const RuleArgs& a);
  static Expected<Grads> LayerNormGrad(const RuleArgs& a) { return notDifferentiable(a); }
};
struct TransformerGrads {
  static Expected<Grads> SoftmaxGrad(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> Gelu(const RuleArgs& a);
  static Expected<Grads> GeluGrad(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> CausalMask(const RuleArgs& a);
  static Expected<Grads> Embedding(const RuleArgs& a);
  static Expected<Grads> EmbeddingGrad(const RuleArgs& a) { return notDifferentiable(a); }
};

// Decode steps are inference only: a compile with --decode is --inference.
struct DecodeGrads {
  static Expected<Grads> KvCacheWrite(const RuleArgs& a) { return notDifferentiable(a); }
  static Expected<Grads> DecodeAttention(const RuleArgs& a) { return notDifferentiable(a); }
};

// GeneralRules.cpp: the general ops imported from ONNX, built from the general
// ops themselves plus the existing *_grad ops; attribute combinations without
// a rule fail naming the node.
struct GeneralGrads {
  static Expected<Grads> Unary(const RuleArgs& a);
  static Expected<Grads> Binary(const RuleArgs& a);
  static Expected<Grads> Where(const RuleArgs& a);
  static Expected<Grads> Cast(const RuleArgs& a);
  static Expected<Grads> Reduce(const RuleArgs& a);
  static Expected<Grads> Expand(const RuleArgs& a);
  static Expected<Grads> Concat(const RuleArgs& a);
  static Expected<Grads> Gather(const RuleArgs& a);
  static Expected<Grads> StridedSlice(const RuleArgs& a);
  static Expected<Grads> Conv(const RuleArgs& a);
  static Expected<Grads> Pool(const RuleArgs& a);
  // Inserted after autograd (data parallel): never differentiated.
  static Expected<Grads> AllReduce(const RuleArgs& a) { return notDifferentiable(a); }
};

}  // namespace dfc::autograd
