#pragma once
// A depthwise convolution (one input channel per group, any depth multiplier,
// stride, dilation and begin/end padding) straight on NCHW, with its bias and
// activation applied as each output tile is written. oneDNN's depthwise
// kernel pays a reorder of the input and output to its blocked layout per
// call, which on MobileNet-sized planes costs more than the sums.
//
// How: each input channel is copied once, zero-padded, into stride x stride
// phase planes (plane (a, b) holds the padded image's rows a, a + sh, ... and
// columns b, b + sw, ...), all with the pitch Q of one output row plus the
// kernel's reach. Every tap is then one contiguous multiply-add of a phase
// plane, shifted, over whole output rows at once (the Q - ow columns past
// each row are computed and dropped), so the loops vectorize over long runs
// however small the plane.
//
// runDepthwise hands the shapes where that loses (narrow planes, stride 2,
// 5x5 kernels) to the lane kernel (DepthwiseLanes.h) when the CPU has AVX-512.
#include "runtime/kernels/OneDnnConv.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

// One input channel per group (group == c) and o a multiple of c.
bool depthwiseShape(const ConvGeometry& g);

// y = act(conv(x, w) + bias) for a depthwiseShape geometry, output planes
// spread over `pool`; bias (null: none) is added before the activation.
Status runDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                    const float* w, const float* bias, float* y);

}  // namespace dfc::runtime::kernels
