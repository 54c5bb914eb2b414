#pragma once
// 3x3 depthwise convolutions on NCHW rows with AVX-512, no transposes: each
// input row is copied once into a zero-padded row on 64-byte lines (a ring of
// them per thread, filled a pair of output rows ahead), and two output rows
// are computed together, 16 columns at a time, the rows they share split into
// taps once. A tap vector comes from aligned loads: stride 1 shifts the
// vectors at a column across (valignd); stride 2 splits 32 columns into the
// even and odd ones. The nine taps are fused multiply-adds, a chain per kernel
// row, then the bias and activation in the registers.
#include "runtime/kernels/OneDnnConv.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

// Depthwise (one output per channel), 3x3, not dilated, the same stride 1 or
// 2 both ways, non-negative padding, on a CPU with AVX-512.
bool rowDepthwiseAvailable(const ConvGeometry& g);

Status runRowDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                       const float* w, const float* bias, float* y);

}  // namespace dfc::runtime::kernels
