#include "ir/Op.h"

#include <array>

namespace dfc::ir {
namespace {
constexpr OpInfo kOps[] = {
#define DFC_OP(Enum, name, nin, nout, doc) {OpKind::Enum, name, nin, nout, doc},
#include "ir/Ops.def"
#undef DFC_OP
};
}  // namespace

const OpInfo& opInfo(OpKind kind) { return kOps[static_cast<size_t>(kind)]; }
std::string_view opName(OpKind kind) { return opInfo(kind).name; }
int numOpKinds() { return static_cast<int>(std::size(kOps)); }

std::optional<OpKind> opFromName(std::string_view name) {
  for (const OpInfo& info : kOps)
    if (info.name == name) return info.kind;
  return std::nullopt;
}

}  // namespace dfc::ir
