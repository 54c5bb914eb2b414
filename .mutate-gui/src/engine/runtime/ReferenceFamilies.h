#pragma once
// Internal to the reference interpreter: one reference implementation per op,
// grouped by the family column of Ops.def. The table in Reference.cpp is
// generated from Ops.def and names <Family>Reference::<Op> for every op, so an
// op added there without its reference here does not compile. (Member names
// are the OpKind enumerators, hence PascalCase.)
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime::reference {

// One node's inputs and its outputs, allocated (zero-filled) with the IR's types.
struct RefArgs {
  const ir::Node& node;
  const std::vector<const ir::Tensor*>& in;
  std::vector<ir::Tensor>& out;

  Error fail(const std::string& what) const {  // "conv2d 'conv1': <what>"
    return makeError(std::string(ir::opName(node.op)) + " '" + node.name + "': " + what);
  }
};

using RefFn = Status (*)(const RefArgs&);
using Index = std::vector<int64_t>;

// Flat row-major position -> multi-index, and back.
inline Index unravel(int64_t flat, const ir::Shape& s) {
  Index idx(s.size(), 0);
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}
inline int64_t ravel(const Index& idx, const ir::Shape& s) {
  int64_t flat = 0;
  for (size_t d = 0; d < s.size(); ++d) flat = flat * s[d] + idx[d];
  return flat;
}

// Reference.cpp
struct ElementwiseReference {
  static Status Add(const RefArgs& a);
  static Status Sub(const RefArgs& a);
  static Status Mul(const RefArgs& a);
  static Status Scale(const RefArgs& a);
  static Status BiasAdd(const RefArgs& a);
  static Status Relu(const RefArgs& a);
  static Status ReluGrad(const RefArgs& a);
};
struct LossReference {
  static Status Softmax(const RefArgs& a);
  static Status SoftmaxCrossEntropy(const RefArgs& a);
  static Status SoftmaxCrossEntropyGrad(const RefArgs& a);
};
struct OptimizerReference {
  static Status SgdUpdate(const RefArgs& a);
  static Status AdamUpdate(const RefArgs& a);
  static Status MomentumUpdate(const RefArgs& a);
};

// ReferenceLinalg.cpp
struct LinalgReference {
  static Status MatMul(const RefArgs& a);
  static Status Linear(const RefArgs& a);
  static Status BatchMatMul(const RefArgs& a);
};
struct LayoutReference {
  static Status Reshape(const RefArgs& a);
  static Status ReduceSum(const RefArgs& a);
  static Status Transpose(const RefArgs& a);
  static Status Slice(const RefArgs& a);
  static Status SliceGrad(const RefArgs& a);
};

// ReferenceVision.cpp
struct ConvReference {
  static Status Conv2d(const RefArgs& a);
  static Status Conv2dGradInput(const RefArgs& a);
  static Status Conv2dGradWeight(const RefArgs& a);
};
struct PoolReference {
  static Status MaxPool2d(const RefArgs& a);
  static Status MaxPool2dGrad(const RefArgs& a);
  static Status GlobalAvgPool(const RefArgs& a);
  static Status GlobalAvgPoolGrad(const RefArgs& a);
};
struct NormReference {
  static Status BatchNorm(const RefArgs& a);
  static Status BatchNormGrad(const RefArgs& a);
  static Status LayerNorm(const RefArgs& a);
  static Status LayerNormGrad(const RefArgs& a);
};

// ReferenceTransformer.cpp
struct TransformerReference {
  static Status SoftmaxGrad(const RefArgs& a);
  static Status Gelu(const RefArgs& a);
  static Status GeluGrad(const RefArgs& a);
  static Status CausalMask(const RefArgs& a);
  static Status Embedding(const RefArgs& a);
  static Status EmbeddingGrad(const RefArgs& a);
};

// ReferenceDecode.cpp
struct DecodeReference {
  static Status KvCacheWrite(const RefArgs& a);
  static Status DecodeAttention(const RefArgs& a);
};

// ReferenceGeneral.cpp
struct GeneralReference {
  static Status Unary(const RefArgs& a);
  static Status Binary(const RefArgs& a);
  static Status Where(const RefArgs& a);
  static Status Cast(const RefArgs& a);
  static Status Reduce(const RefArgs& a);
  static Status Expand(const RefArgs& a);
  static Status Concat(const RefArgs& a);
  static Status Gather(const RefArgs& a);
  static Status StridedSlice(const RefArgs& a);
  static Status Conv(const RefArgs& a);
  static Status Pool(const RefArgs& a);
  static Status AllReduce(const RefArgs& a);
};

}  // namespace dfc::runtime::reference
