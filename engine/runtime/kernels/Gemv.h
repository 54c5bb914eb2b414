#pragma once
// Matrix-vector products (a GEMM with one output row or column) on AVX-512:
// a classifier's matmul at batch 1, a squeeze-excite 1x1 conv. They stream
// the whole matrix once and do two flops a float, so from memory their speed
// is how many lines are in flight: 16 matrix rows at a time, each row a dot
// product with 16 partial sums. bench_gemv on Zen 4, one thread, oneDNN's
// sgemm against this: matrices from DRAM, 1280 -> 1000 336 against 244 us,
// 960 -> 1280 347 against 245, 960 -> 240 64 against 45; in the caches it
// is 5-10% behind (62 against 67 us). In the network (per-node profile) the
// weights come from memory: MobileNetV3's two classifier layers 0.33-0.35 ->
// 0.24 ms each, its squeeze-excite convs 10-16 us faster each. Each output is
// one row's dot product, so the bits do not depend on how a split cuts the rows.
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
