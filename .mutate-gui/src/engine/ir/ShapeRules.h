#pragma once
// Internal to shape inference: one shape rule per op, grouped by the family
// column of Ops.def. The table in ShapeInference.cpp is generated from Ops.def
// and names <Family>Shapes::<Op> for every op, so an op added there without a
// rule here does not compile. (Member names are the OpKind enumerators, hence
// PascalCase.)
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

using OutputTypes = Expected<std::vector<TensorType>>;

// A node and its input types, already checked for arity and valid value ids.
struct ShapeArgs {
  const Node& node;
  const std::vector<const TensorType*>& in;

  // "conv2d 'conv1.conv': <what>"
  Error fail(const std::string& what) const;
  Status requireRank(size_t i, size_t rank) const;
  Status requireSame(size_t a, size_t b) const;
  // Attribute pair ("stride", "pad", "kernel"); both entries `fallback` unless given as two ints.
  std::vector<int64_t> pair(const char* key, int64_t fallback) const;
};

using ShapeRule = OutputTypes (*)(const ShapeArgs&);

std::string shapeStr(const Shape& s);  // "[2,3]"
// `x` with the reduced axes dropped, or kept as 1 (reduce_sum, reduce).
Shape reducedShape(const Shape& x, const std::vector<int64_t>& axes, bool keep);
inline TensorType f32Type(Shape s) { return TensorType{DType::F32, std::move(s)}; }

struct ElementwiseShapes {
  static OutputTypes Add(const ShapeArgs& a);
  static OutputTypes Sub(const ShapeArgs& a);
  static OutputTypes Mul(const ShapeArgs& a);
  static OutputTypes Scale(const ShapeArgs& a);
  static OutputTypes BiasAdd(const ShapeArgs& a);
  static OutputTypes Relu(const ShapeArgs& a);
  static OutputTypes ReluGrad(const ShapeArgs& a);
};

struct LossShapes {
  static OutputTypes Softmax(const ShapeArgs& a);
  static OutputTypes SoftmaxCrossEntropy(const ShapeArgs& a);
  static OutputTypes SoftmaxCrossEntropyGrad(const ShapeArgs& a);
};

struct OptimizerShapes {
  static OutputTypes SgdUpdate(const ShapeArgs& a);
  static OutputTypes AdamUpdate(const ShapeArgs& a);
  static OutputTypes MomentumUpdate(const ShapeArgs& a);
};

struct LinalgShapes {
  static OutputTypes MatMul(const ShapeArgs& a);
  static OutputTypes Linear(const ShapeArgs& a);
  static OutputTypes BatchMatMul(const ShapeArgs& a);
};

struct LayoutShapes {
  static OutputTypes Reshape(const ShapeArgs& a);
  static OutputTypes ReduceSum(const ShapeArgs& a);
  static OutputTypes Transpose(const ShapeArgs& a);
  static OutputTypes Slice(const ShapeArgs& a);
  static OutputTypes SliceGrad(const ShapeArgs& a);
};

struct ConvShapes {
  static OutputTypes Conv2d(const ShapeArgs& a);
  static OutputTypes Conv2dGradInput(const ShapeArgs& a);
  static OutputTypes Conv2dGradWeight(const ShapeArgs& a);
};

struct PoolShapes {
  static OutputTypes MaxPool2d(const ShapeArgs& a);
  static OutputTypes MaxPool2dGrad(const ShapeArgs& a);
  static OutputTypes GlobalAvgPool(const ShapeArgs& a);
  static OutputTypes GlobalAvgPoolGrad(const ShapeArgs& a);
};

struct NormShapes {
  static OutputTypes BatchNorm(const ShapeArgs& a);
  static OutputTypes BatchNormGrad(const ShapeArgs& a);
  static OutputTypes LayerNorm(const ShapeArgs& a);
  static OutputTypes LayerNormGrad(const ShapeArgs& a);
};

struct TransformerShapes {
  static OutputTypes SoftmaxGrad(const ShapeArgs& a);
  static OutputTypes Gelu(const ShapeArgs& a);
  static OutputTypes GeluGrad(const ShapeArgs& a);
  static OutputTypes CausalMask(const ShapeArgs& a);
  static OutputTypes Embedding(const ShapeArgs& a);
  static OutputTypes EmbeddingGrad(const ShapeArgs& a);
};

// shapes/DecodeShapes.cpp: the KV-cache ops of an LLM decode step.
struct DecodeShapes {
  static OutputTypes KvCacheWrite(const ShapeArgs& a);
  static OutputTypes DecodeAttention(const ShapeArgs& a);
};

// GeneralOps.cpp: numpy broadcasting and ONNX window rules.
struct GeneralShapes {
  static OutputTypes Unary(const ShapeArgs& a);
  static OutputTypes Binary(const ShapeArgs& a);
  static OutputTypes Where(const ShapeArgs& a);
  static OutputTypes Cast(const ShapeArgs& a);
  static OutputTypes Reduce(const ShapeArgs& a);
  static OutputTypes Expand(const ShapeArgs& a);
  static OutputTypes Concat(const ShapeArgs& a);
  static OutputTypes Gather(const ShapeArgs& a);
  static OutputTypes StridedSlice(const ShapeArgs& a);
  static OutputTypes Conv(const ShapeArgs& a);
  static OutputTypes Pool(const ShapeArgs& a);
  static OutputTypes AllReduce(const ShapeArgs& a);
};

}  // namespace dfc::ir
