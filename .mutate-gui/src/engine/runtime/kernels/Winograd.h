#pragma once
// Internal to the runtime: Winograd convolution F(m x m, 3x3) for m = 2 and 4
// (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks"). Tiles
// of the output (m x m) are computed from (m+2) x (m+2) input patches: each
// patch is transformed (B^T d B), the (m+2)^2 transform points are multiplied
// over channels as (m+2)^2 GEMMs (U[xi] [out x in] @ V[xi] [in x tiles]), and
// the products are transformed back (A^T M A). The weight transform (G g G^T)
// is done once per call, or kept while the weights are unchanged.
#include <vector>

#include "runtime/Kernel.h"

namespace dfc::runtime::kernels {

// A 3x3 stride-1 correlation over an image [n, in, h, w] padded by (ph, pw),
// writing [n, out, oh, ow] with oh = h + 2ph - 2, ow = w + 2pw - 2.
struct WinogradGeometry {
  int64_t n = 0, in = 0, h = 0, w = 0;
  int64_t out = 0, oh = 0, ow = 0;
  int64_t ph = 0, pw = 0;
};

class WinogradConv {
 public:
  // m: 2 or 4. gradInput: the weight is a forward conv's w [out', in', 3, 3]
  // and this runs its input gradient (in = out', out = in', the kernel
  // flipped and transposed); otherwise w is [out, in, 3, 3].
  WinogradConv(int m, const WinogradGeometry& g, bool gradInput);

  // y = conv(x, w) (+ bias[out] when not null), every element of y written.
  Status run(ExecContext& ctx, const float* x, const float* weight, const float* bias, float* y);

  int tileSize() const { return m_m; }

 private:
  Status transformWeights(ExecContext& ctx, const float* weight);
  Status block(ExecContext& ctx, const float* x, const float* bias, float* y, int64_t t0, int64_t t1, float* v,
               float* mBuf) const;

  int m_m, m_alpha;
  WinogradGeometry m_g;
  bool m_gradInput;
  int64_t m_tilesH, m_tilesW, m_tiles;  // per image: tilesH x tilesW
  int64_t m_blockTiles = 1;             // tiles per GEMM block
  std::vector<float> m_u;               // transformed weights [alpha^2][out][in]
  std::vector<float> m_weights;         // the weights m_u was transformed from
  bool m_weightsValid = false;
};

}  // namespace dfc::runtime::kernels
