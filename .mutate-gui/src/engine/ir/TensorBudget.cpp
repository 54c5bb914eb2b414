#include "ir/TensorBudget.h"

#include "support/SizeBudget.h"

namespace dfc::ir {

std::optional<uint64_t> checkedByteSize(const TensorType& type) {
  uint64_t bytes = dtypeSize(type.dtype);
  for (int64_t d : type.shape) {
    if (d < 0) return std::nullopt;
    auto next = support::checkedMul(bytes, static_cast<uint64_t>(d));
    if (!next) return std::nullopt;
    bytes = *next;
  }
  return bytes;
}

std::string valueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::Input: return "input";
    case ValueKind::Param: return "param";
    case ValueKind::Const: return "const";
    case ValueKind::Intermediate: return "value";
  }
  return "value";
}

Status checkTensorBound(const std::string& what, const TensorType& type) {
  auto bytes = checkedByteSize(type);
  if (!bytes || *bytes > kMaxTensorBytes)
    return makeError(what + " " + type.toString() + " is larger than the " + support::formatBytes(kMaxTensorBytes) +
                     " any tensor may have");
  return {};
}

Status checkTensorBudget(const std::string& what, const TensorType& type) {
  DFC_TRY(checkTensorBound(what, type));
  return support::checkBudget(what + " " + type.toString(), *checkedByteSize(type));
}

Status checkGraphBudget(const Graph& g) {
  uint64_t persistent = 0, largestIntermediate = 0;
  const Value* largest = nullptr;
  for (const Value& v : g.values) {
    DFC_TRY(checkTensorBudget(valueKindName(v.kind) + " '" + v.name + "'", v.type));
    uint64_t bytes = *checkedByteSize(v.type);  // bounded by kMaxTensorBytes above
    if (v.kind != ValueKind::Intermediate) persistent = support::checkedAdd(persistent, bytes).value_or(UINT64_MAX);
    else if (bytes > largestIntermediate) largestIntermediate = bytes;
    if (!largest || bytes > *checkedByteSize(largest->type)) largest = &v;
  }
  if (!largest) return {};
  uint64_t need = support::checkedAdd(persistent, largestIntermediate).value_or(UINT64_MAX);
  return support::checkBudget("the graph's weights, inputs and largest intermediate (the biggest: " +
                                  valueKindName(largest->kind) + " '" + largest->name + "' " + largest->type.toString() +
                                  ")",
                              need);
}

Status checkCompileBudget(const Graph& g) {
  for (const Value& v : g.values) DFC_TRY(checkTensorBound(valueKindName(v.kind) + " '" + v.name + "'", v.type));
  uint64_t held = 0;
  for (const auto& [id, tensor] : g.initializers)
    if (!tensor.isDeferred()) held = support::checkedAdd(held, *checkedByteSize(g.value(id).type)).value_or(UINT64_MAX);
  return support::checkBudget("the weights the compile holds in memory (initializers with data, not recipes)", held);
}

}  // namespace dfc::ir
