#pragma once
// The memory budget every reader checks declared sizes against before it
// allocates: by default what the machine (or its cgroup) has, changed with
// --max-memory. A hostile file that declares a 256 GiB tensor is refused with
// a message naming the tensor, instead of dying of bad_alloc.
#include <cstdint>
#include <optional>
#include <string>

#include "support/Error.h"

namespace dfc::support {

uint64_t machineMemoryBytes();         // physical memory, or the cgroup or ulimit -v limit if lower
uint64_t memoryBudget();               // setMemoryBudget's value, else machineMemoryBytes()
void setMemoryBudget(uint64_t bytes);  // 0: back to the machine's memory

// "512", "64K", "8M", "16G", "1.5GiB", "2T" (binary units). Errors name `flag`.
Expected<uint64_t> parseByteSize(const std::string& flag, const std::string& text);
std::string formatBytes(uint64_t bytes);  // "256.0 GiB", "812 B"

// a * b, or nullopt when it does not fit in 63 bits (sizes stay valid int64 too).
std::optional<uint64_t> checkedMul(uint64_t a, uint64_t b);
std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b);

// "<what> needs <bytes>, more than the memory budget of <budget> (--max-memory)".
Status checkBudget(const std::string& what, uint64_t bytes);

}  // namespace dfc::support
