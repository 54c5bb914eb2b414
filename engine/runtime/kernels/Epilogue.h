#pragma once
// What a convolution or GEMM applies on its output tile after the sum: its
// bias, then an activation (relu, or clip to [lo, hi]). Shared by oneDNN's
// post-ops (OneDnnConv.h), the depthwise kernel and the GEMMs (Sgemm.h).
#include <cstdint>

#include "ir/Graph.h"

// The build targets baseline x86-64. A hot loop marked DFC_VECTOR_CLONES is
// also compiled for AVX2 and AVX-512, the best picked when the program loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DFC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DFC_VECTOR_CLONES
#endif

namespace dfc::runtime::kernels {

// After the sum: + bias[o] (when given), + a residual tensor of the output's
// shape (when given), then the activation. SiLU (EfficientNet's) and
// hard-swish (MobileNetV3's) give the bits of the unary op's own loop
// (FastUnary.h) on every kernel but oneDNN's, whose post-ops round their own.
enum class ConvActivation { None, Relu, Clip, Silu, HardSwish };
struct ConvEpilogue {
  bool bias = false;
  ConvActivation activation = ConvActivation::None;
  float lo = 0, hi = 0;  // Clip's bounds
  bool residual = false;
};

// A relu (the op, or unary fn relu), a clip (unary fn clip, bounds alpha and
// beta), a silu or a hard_swish (unary fns) as `e`'s activation; false for any other node.
bool activationOf(const ir::Node& node, ConvEpilogue& e);

// The activation on y[0..n) in place, as the op would (kernels other than oneDNN's).
void applyActivation(const ConvEpilogue& e, float* y, int64_t n);

// y[i] += skip[i], i < n (a residual add on an output tile).
void addResidual(float* y, const float* skip, int64_t n);

}  // namespace dfc::runtime::kernels
