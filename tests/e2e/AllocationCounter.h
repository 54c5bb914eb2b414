#pragma once
// Counts C++ heap allocations (operator new, every form) in this test binary,
// so a test can say "this loop allocates nothing". malloc calls made by C
// libraries (OpenBLAS keeps its own buffers, allocated once) are not counted.
#include <cstdint>

namespace dfc::test {

uint64_t allocationCount();

}  // namespace dfc::test
