#pragma once
// Internal to the reference interpreter: one reference implementation per op,
// grouped by the family column of Ops.def. The declarations and the table in
// Reference.cpp are generated from Ops.def and name <Family>Reference::<Op>
// for every op, so an op added there without its reference does not link. (Member names
// are the OpKind enumerators, hence PascalCase.)
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "ir/OpFamilies.gen.h"
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

// One struct per family, <Family>Reference, with a function per op of the
// family: declared from Ops.def (OpFamilies.gen.h), defined in Reference*.cpp.
#define DFC_REFERENCE(Op) static Status Op(const RefArgs& a);
DFC_FAMILY_STRUCTS(Reference, DFC_REFERENCE)
#undef DFC_REFERENCE

}  // namespace dfc::runtime::reference
