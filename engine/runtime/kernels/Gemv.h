#pragma once
// Matrix-vector products (a GEMM with one output row or column) on AVX-512:
// a classifier's matmul at batch 1, a squeeze-excite 1x1 conv. They stream
// the whole matrix once and do two flops a float, so from memory their speed
// is how many lines are in flight: 16 matrix rows at a time, each row a dot
// product with 16 partial sums, and the next 16 rows prefetched into L2 line
// by line meanwhile (a squeeze-excite row is 1 KB, too short for the hardware
// prefetcher to ramp up). bench_gemv on Zen 4, one thread, oneDNN's sgemm
// against this, matrices from DRAM: 1280 -> 1000 323 against 211 us, 240 ->
// 960 87 against 46, 960 -> 240 65 against 43; in the caches the prefetches
// cost more than they bring (70 against 97 us), but in a network the
// activations between two calls push the weights out: per-node profile,
// MobileNetV3's classifier and squeeze-excite convs 1.23-1.29 ms a step on
// oneDNN -> 0.71-0.77, MobileNetV2's classifier 0.33 -> 0.21-0.23. Each output
// is one row's dot product, so the bits do not depend on how a split cuts the rows.
#include "runtime/kernels/Sgemm.h"

namespace dfc::runtime::kernels {

// A product gemv() computes: one output row with op(b) = b^T (m = 1, each
// output a dot product with a row of b), or one output column with a not
// transposed (n = 1, a dot product with a row of a), on a CPU with AVX-512.
bool gemvShape(const GemmCall& g);

// c = alpha * op(a) @ op(b) + beta * c for a gemvShape call (bias and the
// rest of the epilogue are the caller's, as for the library call).
void gemv(const GemmCall& g);

}  // namespace dfc::runtime::kernels
