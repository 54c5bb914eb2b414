#include "ir/Op.h"

#include <array>

namespace dfc::ir {
namespace {
constexpr OpInfo kOps[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) {OpKind::Enum, name, nin, nout, OpFamily::family, doc},
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

std::string_view familyName(OpFamily family) {
  switch (family) {
    case OpFamily::Elementwise: return "elementwise";
    case OpFamily::Linalg: return "linalg";
    case OpFamily::Conv: return "conv";
    case OpFamily::Pool: return "pool";
    case OpFamily::Norm: return "norm";
    case OpFamily::Layout: return "layout";
    case OpFamily::Transformer: return "transformer";
    case OpFamily::Loss: return "loss";
    case OpFamily::Optimizer: return "optimizer";
    case OpFamily::General: return "general";
    case OpFamily::Decode: return "decode";
  }
  return "?";
}

}  // namespace dfc::ir
