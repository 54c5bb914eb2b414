#pragma once
// The depthwise kernel with 16 channels side by side in the lanes of an
// AVX-512 vector. A block of 16 input planes is gathered into a zero-padded
// [rows][columns][16] buffer; each output position is then one vector
// multiply-add per tap, whatever the plane's width; the block is gathered
// back to NCHW with its bias and activation. The NCHW kernel (Depthwise.h)
// vectorizes along a plane's rows, which on narrow planes (14, 7 columns) run
// mostly in scalar tails and per-row overhead.
#include "runtime/kernels/OneDnnConv.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

// The CPU has AVX-512 and `g` has a depth multiplier of 1, pads >= 0 and planes
// small enough for 32-bit gather offsets.
bool laneDepthwiseAvailable(const ConvGeometry& g);

// y = act(conv(x, w) + bias) for a laneDepthwiseAvailable geometry; blocks of 16 channels spread over `pool`.
Status runLaneDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                        const float* w, const float* bias, float* y);

}  // namespace dfc::runtime::kernels
