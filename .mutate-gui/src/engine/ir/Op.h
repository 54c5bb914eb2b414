#pragma once
// OpKind and its static facts, generated from Ops.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace dfc::ir {

enum class OpKind : uint16_t {
#define DFC_OP(Enum, name, nin, nout, family, doc) Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

// The family column of Ops.def: which shape-rule, reference and kernel
// families implement the op (see Ops.def).
enum class OpFamily : uint8_t { Elementwise, Linalg, Conv, Pool, Norm, Layout, Transformer, Loss, Optimizer, General, Decode };

struct OpInfo {
  OpKind kind;
  std::string_view name;  // text form, e.g. "conv2d"
  int numInputs;          // -1: variadic
  int numOutputs;         // -1: variadic
  OpFamily family;
  std::string_view doc;
};

const OpInfo& opInfo(OpKind kind);
std::string_view opName(OpKind kind);
std::optional<OpKind> opFromName(std::string_view name);
int numOpKinds();
std::string_view familyName(OpFamily family);  // "elementwise", "linalg", ...

}  // namespace dfc::ir
