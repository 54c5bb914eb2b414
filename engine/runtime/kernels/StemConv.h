#pragma once
// A network's stem convolution (MobileNet's and EfficientNet's first layer):
// 3x3, stride 2, pad 0 or 1, on at most kStemMaxChannels input channels (an
// image), straight on NCHW, its bias, residual and activation applied in
// registers before the one store of each output. oneDNN writes its blocked
// layout here and pays a reorder of the large output plane back to NCHW
// (MobileNetV2's 32 x 112 x 112 took 0.47 ms a call at one thread, this
// kernel 0.2 ms: bench_pointwise).
//
// How: each input channel is copied once, zero-padded, with a row pitch of
// whole 32-column runs; 16 output columns of a row then read two 16-float
// vectors per kernel row and pick their even and odd columns with one
// permute each (the three taps of the row), and 16 output channels accumulate
// in 16 registers, which stay there through the epilogue (one function per
// activation). The next vector's output lines are fetched for writing during
// the sums: in the network the 1.6 MB output is past L2, and the call took
// 0.43 ms with the stores waiting on their lines, 0.30 ms with them fetched
// (0.29 -> 0.24 ms alone, bench_pointwise). AVX-512 only: without it the
// chooser keeps oneDNN.
#include <cstdint>

#include "runtime/kernels/Epilogue.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

constexpr int64_t kStemMaxChannels = 4;

// NCHW: x [n, c, h, w], weight [o, c, 3, 3], y [n, o, oh, ow]; stride 2, pads ph, pw.
struct StemGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, o = 0, ph = 0, pw = 0, oh = 0, ow = 0;
};

// The CPU runs AVX-512F (the kernel's only form).
bool stemConvAvailable();

// Floats of scratch runStemConv needs (the padded input, packed weights and bias).
int64_t stemScratchFloats(const StemGeometry& g);

// y = act(conv(x, w) + bias + skip), output rows spread over `pool`; bias and
// skip (y's shape) may be null. Each output's sum runs in the same order
// (bias, then channel, kernel row, kernel column) at any thread count.
Status runStemConv(support::ThreadPool& pool, const StemGeometry& g, const ConvEpilogue& act, const float* x,
                   const float* w, const float* bias, const float* skip, float* y, float* scratch);

}  // namespace dfc::runtime::kernels
