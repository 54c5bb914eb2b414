#pragma once
// OpKind and its static facts, generated from Ops.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace dfc::ir {

enum class OpKind : uint16_t {
#define DFC_OP(Enum, name, nin, nout, doc) Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

struct OpInfo {
  OpKind kind;
  std::string_view name;  // text form, e.g. "conv2d"
  int numInputs;          // -1: variadic
  int numOutputs;         // -1: variadic
  std::string_view doc;
};

const OpInfo& opInfo(OpKind kind);
std::string_view opName(OpKind kind);
std::optional<OpKind> opFromName(std::string_view name);
int numOpKinds();

}  // namespace dfc::ir
