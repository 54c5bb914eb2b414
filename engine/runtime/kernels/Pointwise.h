#pragma once
// A 1x1 stride-1 unpadded convolution with stable weights (inference) as
// y[o, p] = sum_k w[o, k] x[k, p] straight on NCHW, its bias, residual and
// activation applied in registers before the one store of each output. The
// library's sgemm packs both operands on every call (the weight: 1.6 MB for
// MobileNetV2's last 320 -> 1280 conv); here the weight is packed once into
// 8-channel panels and the input read in place, 48 pixels (three vectors) at
// a time.
//
// How: a tile is 8 output channels x 48 pixels in 24 registers; each input
// channel adds one broadcast weight times three input vectors per output
// channel. Pixels run in chunks whose input rows stay in L2 while every
// panel of channels passes over them. Every output's sum runs in the same
// order (bias, then input channels in order) whatever the thread count.
// AVX-512 only: without it the chooser keeps the GEMM.
#include <cstdint>
#include <vector>

#include "runtime/kernels/Epilogue.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

// The CPU runs AVX-512F (the kernel's only form).
bool pointwiseConvAvailable();

// x [n, c, pixels] -> y [n, o, pixels] through the weight w [o, c].
struct PointwiseGeometry {
  int64_t n = 0, c = 0, o = 0, pixels = 0;
};

class PointwiseConv {
 public:
  explicit PointwiseConv(const PointwiseGeometry& g) : m_g(g) {}

  // y = act(w @ x + bias + skip); bias and skip (y's shape) may be null.
  // stableWeights: w holds the same values on every call (packed once).
  Status run(support::ThreadPool& pool, const ConvEpilogue& act, const float* x, const float* w, const float* bias,
             const float* skip, float* y, bool stableWeights);

 private:
  PointwiseGeometry m_g;
  std::vector<float> m_packed;  // [o / 8 panels][c][8], zeros past o
  bool m_packedOnce = false;
};

}  // namespace dfc::runtime::kernels
