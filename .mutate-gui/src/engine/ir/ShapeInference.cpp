// Shape inference dispatches through a table generated from Ops.def: each
// op's rule is <Family>Shapes::<Op> (ShapeRules.h), in the family's file.
#include "ir/ShapeInference.h"

#include "ir/ShapeRules.h"

#include <iterator>

namespace dfc::ir {
namespace {

constexpr ShapeRule kShapeRules[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) family##Shapes::Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

}  // namespace

std::string shapeStr(const Shape& s) { return TensorType{DType::F32, s}.toString().substr(3); }

Error ShapeArgs::fail(const std::string& what) const {
  return makeError(std::string(opName(node.op)) + " '" + node.name + "': " + what);
}

Status ShapeArgs::requireRank(size_t i, size_t rank) const {
  if (in[i]->rank() != rank)
    return fail("input " + std::to_string(i) + " must have rank " + std::to_string(rank) + ", has shape " +
                shapeStr(in[i]->shape));
  return {};
}

Status ShapeArgs::requireSame(size_t a, size_t b) const {
  if (in[a]->shape != in[b]->shape) return fail("shapes differ: " + shapeStr(in[a]->shape) + " vs " + shapeStr(in[b]->shape));
  return {};
}

std::vector<int64_t> ShapeArgs::pair(const char* key, int64_t fallback) const {
  auto v = node.intsAttr(key);
  if (v.size() != 2) v = {fallback, fallback};
  return v;
}

Expected<std::vector<TensorType>> inferOutputTypes(const Graph& g, const Node& n) {
  const OpInfo& info = opInfo(n.op);
  std::vector<const TensorType*> in;
  const ShapeArgs args{n, in};
  if (info.numInputs >= 0 && static_cast<int>(n.inputs.size()) != info.numInputs)
    return args.fail("expects " + std::to_string(info.numInputs) + " inputs, got " + std::to_string(n.inputs.size()));
  in.reserve(n.inputs.size());
  for (ValueId v : n.inputs) {
    if (v < 0 || static_cast<size_t>(v) >= g.values.size()) return args.fail("input refers to an unknown value");
    in.push_back(&g.value(v).type);
  }
  const size_t op = static_cast<size_t>(n.op);
  if (op >= std::size(kShapeRules)) return makeError("node '" + n.name + "': unknown op " + std::to_string(op));
  return kShapeRules[op](args);
}

}  // namespace dfc::ir
