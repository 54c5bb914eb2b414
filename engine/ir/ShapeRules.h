#pragma once
// Internal to shape inference: one shape rule per op, grouped by the family
// column of Ops.def. The declarations and the table in ShapeInference.cpp are
// generated from Ops.def and name <Family>Shapes::<Op> for every op, so an op
// added there without a rule does not link. (Member names are the OpKind enumerators, hence
// PascalCase.)
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "ir/OpFamilies.gen.h"
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

// One struct per family, <Family>Shapes, with a rule per op of the family:
// declared from Ops.def (OpFamilies.gen.h), defined in shapes/*.cpp (the
// general ops: GeneralOps.cpp).
#define DFC_SHAPE_RULE(Op) static OutputTypes Op(const ShapeArgs& a);
DFC_FAMILY_STRUCTS(Shapes, DFC_SHAPE_RULE)
#undef DFC_SHAPE_RULE

}  // namespace dfc::ir
