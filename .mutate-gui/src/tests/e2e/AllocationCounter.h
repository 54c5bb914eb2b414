#pragma once
// Counts C++ heap allocations (operator new, every form) in this test binary,
// so a test can say "this loop allocates nothing". malloc calls made by C
// libraries are not counted: OpenBLAS keeps its own buffers, allocated once;
// oneDNN's sgemm takes its packing buffer from malloc on every call (one
// posix_memalign per GEMM, which glibc serves from the heap once warm).
#include <cstdint>

namespace dfc::test {

uint64_t allocationCount();

}  // namespace dfc::test
