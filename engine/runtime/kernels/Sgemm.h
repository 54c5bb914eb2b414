#pragma once
// Every f32 GEMM of the runtime goes through here, on oneDNN's sgemm or
// OpenBLAS. The default (auto) takes oneDNN, which picks its kernels from the
// CPU (AVX-512 where there is one) while OpenBLAS follows OPENBLAS_CORETYPE,
// which some machines force to Haswell (on an AVX-512 machine: 107 against
// 192-206 GFLOP/s, NN and NT); but on a CPU without AVX-512 a large product
// with A transposed (a weight gradient X^T dY over many rows: k and both of
// m, n at least 256) goes to OpenBLAS: oneDNN 2.6's AVX2 path runs the GPT-2
// shape's MLP weight gradients at 32-38 GFLOP/s where OpenBLAS's Zen kernels
// reach 68-73 (smaller A^T products, such as LeNet's, and every other
// product within about 10%, oneDNN mostly ahead).
// bench_runtime --gemm onednn|openblas|auto sets them side by side.
//
// Threads: the library itself always runs on one thread (oneDNN's OpenMP team
// and OpenBLAS's threads are held at one), and sgemm() splits a large GEMM over
// the runtime's pool by output rows or columns, so there is one pool and
// nothing oversubscribes it. Each output element is still one library call
// over the whole inner dimension, but which call depends on the split.
#include <cstdint>

#include "runtime/kernels/Epilogue.h"
#include "support/Error.h"

namespace dfc::support {
class ThreadPool;
}

namespace dfc::runtime::kernels {

enum class GemmLibrary { Auto, OneDnn, OpenBlas };

// oneDNN runs AVX-512 kernels on this CPU (its effective ISA, once).
bool oneDnnHasAvx512();

// Process-wide; the default is Auto.
GemmLibrary gemmLibrary();
void setGemmLibrary(GemmLibrary library);
const char* gemmLibraryName(GemmLibrary library);
// "auto" / "onednn" / "openblas"; false for anything else.
bool parseGemmLibrary(const char* text, GemmLibrary& out);
// What the library runs on this CPU, e.g. "oneDNN 2.6.3, avx512_core" or "OpenBLAS Haswell".
const char* gemmKernelDescription();
// The library `library` takes for this call (Auto resolved by the rule above).
GemmLibrary libraryFor(GemmLibrary library, bool ta, bool tb, int64_t m, int64_t n, int64_t k);

// Row-major c[m, n] = alpha * op(a) @ op(b) + beta * c, op(x) = x^T when t*.
// With a bias (the epilogue of a fused bias_add), c = alpha * op(a) @ op(b) +
// bias instead, c's old contents unread: each piece of a split GEMM writes
// its own bias rows just before its product accumulates onto them, on the
// same thread, while they are in cache. With a residual it is added next, and
// with an activation (a conv's relu or
// clip epilogue) it is applied to c after the product and bias. With a row
// bias, residual or activation (a conv's epilogue), a wide product whose
// op(a) fits in L2 runs in panels of columns (kPanelFloats of output each),
// each panel's bias written, multiplied onto and activated while in cache.
struct GemmCall {
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  float beta = 0.0f;
  float* c = nullptr;
  int64_t ldc = 0;
  const float* columnBias = nullptr;  // [n]: added to every row (matmul + bias_add)
  const float* rowBias = nullptr;     // [m]: added along each row (conv2d + bias_add, rows = output channels)
  const float* residual = nullptr;    // [m, n] rows ldr apart: added after the product and bias
  int64_t ldr = 0;
  const ConvEpilogue* activation = nullptr;  // then its activation (bias and residual fields ignored)
};

// Output floats a panel of a GEMM with a bias or activation spans at most (the L2 holds it).
constexpr int64_t kPanelFloats = int64_t{1} << 15;

// Below this many multiply-adds a split costs more (waking the pool, smaller
// library calls) than it saves: 64 x 64 x 256.
constexpr int64_t kMinSplitMacs = int64_t{1} << 20;
// A matrix-vector product (Gemv.h) streams its matrix from memory, a float a
// multiply-add, and two cores fetch it faster than one: it splits from 64K.
// MobileNetV3's 240 -> 960 squeeze-excite convs (230K) took 37-43 us on one
// thread of two, 22-25 us split.
constexpr int64_t kMinSplitGemvMacs = int64_t{1} << 16;

// On the calling thread only (pool tasks that each run their own GEMMs).
Status sgemmOnThisThread(const GemmCall& g);

// Split over the pool when the GEMM is large enough to pay for it, else on
// this thread. The pieces are cut as for `splitWidth` threads (<= 0: the
// pool's size), whatever the pool's size: a fixed width gives the same
// pieces, so the same bits, on any pool. The library may round a piece's
// output differently from the unsplit call's (oneDNN on AVX2 does).
Status sgemm(support::ThreadPool& pool, const GemmCall& g, int splitWidth = 0);

}  // namespace dfc::runtime::kernels
