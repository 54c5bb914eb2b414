#pragma once
// Declared tensor sizes checked before anything allocates them: each value's
// bytes (overflow-checked), and a graph's lower bound of memory (every
// persistent value plus its largest intermediate) against the memory budget
// (support/SizeBudget.h). Errors name the tensor, its type and its bytes.
#include <cstdint>
#include <optional>
#include <string>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// No tensor is larger than this, whatever the budget (the .dfir parser's bound too).
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

// Bytes of `type`, or nullopt when the element count overflows.
std::optional<uint64_t> checkedByteSize(const TensorType& type);

// `what` ("param 'w'") of type `type` fits the budget and kMaxTensorBytes.
Status checkTensorBudget(const std::string& what, const TensorType& type);
// `what` of type `type` is within kMaxTensorBytes (declared, not allocated now: no budget).
Status checkTensorBound(const std::string& what, const TensorType& type);

// Every value of `g` fits, and so does the least memory running it takes.
// What a run (or a reader that materializes weights) must check.
Status checkGraphBudget(const Graph& g);

// What a compile holds: every value within kMaxTensorBytes, and the weights it
// has materialized (initializers with data; recipes allocate nothing) within
// the budget. A 405B model's recipes compile on a 24 GiB host; running it is
// refused by checkGraphBudget.
Status checkCompileBudget(const Graph& g);

std::string valueKindName(ValueKind kind);  // "input", "param", "const", "value"

}  // namespace dfc::ir
