// Winograd F(2x2,3x3) and F(4x4,3x3): transforms, blocked GEMMs over the
// transform points, and the output transform with the bias epilogue. Tiles of
// all images are numbered together and cut into blocks of a size fixed by the
// shape; each phase of a block splits over the pool without changing any sum,
// so results do not depend on the thread count.
#include "runtime/kernels/Winograd.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/Sgemm.h"

namespace dfc::runtime::kernels {
namespace {

// The filter transform G (Lavin & Gray); B^T and A^T are written out in Transform1d.
// F(2x2,3x3): interpolation points 0, 1, -1, inf. F(4x4,3x3): 0, 1, -1, 2, -2, inf.
template <int M>
struct FilterMatrix;

template <>
struct FilterMatrix<2> {
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
};

template <>
struct FilterMatrix<4> {
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
};

// The 1-D transforms, each over `n` lanes (tiles) at once: x[k * xs + l] -> y[i * ys + l].
// Written out (not as matrix products) so that no multiply by zero is left to the compiler.
constexpr int kLanes = 16;

template <int M>
struct Transform1d;

template <>
struct Transform1d<2> {
  static void bt(const float* __restrict x, int64_t xs, float* __restrict y, int64_t ys, int n) {
    for (int l = 0; l < n; ++l) {
      const float a0 = x[l], a1 = x[xs + l], a2 = x[2 * xs + l], a3 = x[3 * xs + l];
      y[l] = a0 - a2;
      y[ys + l] = a1 + a2;
      y[2 * ys + l] = a2 - a1;
      y[3 * ys + l] = a1 - a3;
    }
  }
  static void at(const float* __restrict x, int64_t xs, float* __restrict y, int64_t ys, int n) {
    for (int l = 0; l < n; ++l) {
      const float a0 = x[l], a1 = x[xs + l], a2 = x[2 * xs + l], a3 = x[3 * xs + l];
      y[l] = a0 + a1 + a2;
      y[ys + l] = a1 - a2 - a3;
    }
  }
};

template <>
struct Transform1d<4> {
  static void bt(const float* __restrict x, int64_t xs, float* __restrict y, int64_t ys, int n) {
    for (int l = 0; l < n; ++l) {
      const float a0 = x[l], a1 = x[xs + l], a2 = x[2 * xs + l], a3 = x[3 * xs + l], a4 = x[4 * xs + l],
                  a5 = x[5 * xs + l];
      y[l] = 4 * a0 - 5 * a2 + a4;
      y[ys + l] = a3 + a4 - 4 * (a1 + a2);
      y[2 * ys + l] = 4 * (a1 - a2) + a4 - a3;
      y[3 * ys + l] = 2 * (a3 - a1) + a4 - a2;
      y[4 * ys + l] = 2 * (a1 - a3) + a4 - a2;
      y[5 * ys + l] = 4 * a1 - 5 * a3 + a5;
    }
  }
  static void at(const float* __restrict x, int64_t xs, float* __restrict y, int64_t ys, int n) {
    for (int l = 0; l < n; ++l) {
      const float a0 = x[l], a1 = x[xs + l], a2 = x[2 * xs + l], a3 = x[3 * xs + l], a4 = x[4 * xs + l],
                  a5 = x[5 * xs + l];
      const float s12 = a1 + a2, d12 = a1 - a2, s34 = a3 + a4, d34 = a3 - a4;
      y[l] = a0 + s12 + s34;
      y[ys + l] = d12 + 2 * d34;
      y[2 * ys + l] = s12 + 4 * s34;
      y[3 * ys + l] = d12 + 8 * d34 + a5;
    }
  }
};

// V[xi] = B^T d B for `n` patches d[r][s][lane] at once; V[xi] lane l at v[xi * vStride + l].
template <int M>
inline void inputTransform(const float* d, float* v, int64_t vStride, int n) {
  constexpr int a = M + 2;
  float t[a * a * kLanes];
  for (int s = 0; s < a; ++s) Transform1d<M>::bt(d + s * kLanes, a * kLanes, t + s * kLanes, a * kLanes, n);
  for (int i = 0; i < a; ++i) Transform1d<M>::bt(t + i * a * kLanes, kLanes, v + i * a * vStride, vStride, n);
}

// y[r][s][lane] = (A^T m A)[r][s] for `n` tiles at once; m[xi] lane l at m[xi * mStride + l].
template <int M>
inline void outputTransform(const float* m, int64_t mStride, float* y, int n) {
  constexpr int a = M + 2;
  float t[M * a * kLanes];
  for (int col = 0; col < a; ++col) Transform1d<M>::at(m + col * mStride, a * mStride, t + col * kLanes, a * kLanes, n);
  for (int i = 0; i < M; ++i) Transform1d<M>::at(t + i * a * kLanes, kLanes, y + i * M * kLanes, kLanes, n);
}

// Kernels transformed at once, a lane each (the loops over lanes vectorize).
constexpr int64_t kWeightLanes = 16;

// u = G g G^T (alpha x alpha, row-major) for kWeightLanes 3x3 kernels:
// g[(r * 3 + s) * lanes + l] in, u[(i * alpha + j) * uStride + l] out. In
// double, as each lane's arithmetic was when it ran one kernel at a time.
template <int M>
void weightTransform(const float* __restrict g, float* __restrict u, int64_t uStride) {
  using T = FilterMatrix<M>;
  constexpr int a = M + 2;
  constexpr int64_t L = kWeightLanes;
  double t[a][3][L];
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < 3; ++j)
      for (int64_t l = 0; l < L; ++l)
        t[i][j][l] = T::kG[i][0] * g[(0 + j) * L + l] + T::kG[i][1] * g[(3 + j) * L + l] + T::kG[i][2] * g[(6 + j) * L + l];
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < a; ++j)
      for (int64_t l = 0; l < L; ++l)
        u[(i * a + j) * uStride + l] =
            static_cast<float>(t[i][0][l] * T::kG[j][0] + t[i][1][l] * T::kG[j][1] + t[i][2][l] * T::kG[j][2]);
}

// The input patch of one tile into lane `l` of d[r][s][lane]: rows y0.., columns x0.. of a plane, zero outside.
template <int M>
inline void gatherPatch(const float* plane, int64_t h, int64_t w, int64_t y0, int64_t x0, float* d, int l) {
  constexpr int a = M + 2;
  if (y0 >= 0 && x0 >= 0 && y0 + a <= h && x0 + a <= w) {
    for (int r = 0; r < a; ++r)
      for (int s = 0; s < a; ++s) d[(r * a + s) * kLanes + l] = plane[(y0 + r) * w + x0 + s];
    return;
  }
  for (int r = 0; r < a; ++r)
    for (int s = 0; s < a; ++s) {
      const int64_t iy = y0 + r, ix = x0 + s;
      d[(r * a + s) * kLanes + l] = iy >= 0 && iy < h && ix >= 0 && ix < w ? plane[iy * w + ix] : 0.0f;
    }
}

struct BlockArgs {
  const WinogradGeometry& g;
  int64_t tilesW, tilesPerImage, t0, t1;  // the block: tiles [t0, t1) of all images, numbered together
};

// V[xi][c][j] for channels [c0, c1) and tiles j = t - t0 of the block, kLanes tiles at a time.
template <int M>
void transformBlockInput(const BlockArgs& b, const float* x, float* v, int64_t c0, int64_t c1) {
  const WinogradGeometry& g = b.g;
  const int64_t nb = b.t1 - b.t0, pointStride = g.in * nb;
  float d[(M + 2) * (M + 2) * kLanes];
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t t0 = b.t0; t0 < b.t1; t0 += kLanes) {
      const int n = static_cast<int>(std::min<int64_t>(kLanes, b.t1 - t0));
      for (int l = 0; l < n; ++l) {
        const int64_t t = t0 + l, image = t / b.tilesPerImage, q = t % b.tilesPerImage;
        const float* plane = x + (image * g.in + c) * g.h * g.w;
        gatherPatch<M>(plane, g.h, g.w, (q / b.tilesW) * M - g.ph, (q % b.tilesW) * M - g.pw, d, l);
      }
      inputTransform<M>(d, v + c * nb + (t0 - b.t0), pointStride, n);
    }
}

// y's tiles of the block for channels [o0, o1) from M[xi][o][j], plus bias[o], kLanes tiles at a time.
template <int M>
void transformBlockOutput(const BlockArgs& b, const float* m, const float* bias, float* y, int64_t o0, int64_t o1) {
  const WinogradGeometry& g = b.g;
  const int64_t nb = b.t1 - b.t0, pointStride = g.out * nb;
  float tiles[M * M * kLanes];
  for (int64_t o = o0; o < o1; ++o) {
    const float add = bias ? bias[o] : 0.0f;
    for (int64_t t0 = b.t0; t0 < b.t1; t0 += kLanes) {
      const int n = static_cast<int>(std::min<int64_t>(kLanes, b.t1 - t0));
      outputTransform<M>(m + o * nb + (t0 - b.t0), pointStride, tiles, n);
      for (int l = 0; l < n; ++l) {
        const int64_t t = t0 + l, image = t / b.tilesPerImage, q = t % b.tilesPerImage;
        const int64_t y0 = (q / b.tilesW) * M, x0 = (q % b.tilesW) * M;
        float* plane = y + (image * g.out + o) * g.oh * g.ow;
        const int64_t rows = std::min<int64_t>(M, g.oh - y0), cols = std::min<int64_t>(M, g.ow - x0);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t s = 0; s < cols; ++s) plane[(y0 + r) * g.ow + x0 + s] = tiles[(r * M + s) * kLanes + l] + add;
      }
    }
  }
}

}  // namespace

WinogradConv::WinogradConv(int m, const WinogradGeometry& g, bool gradInput)
    : m_m(m), m_alpha(m + 2), m_g(g), m_gradInput(gradInput) {
  m_tilesH = (g.oh + m - 1) / m;
  m_tilesW = (g.ow + m - 1) / m;
  m_tiles = g.n * m_tilesH * m_tilesW;
  // Wide GEMMs: the transformed weights (U[xi], out x in) are packed once per
  // GEMM, so a block takes as many tiles as keep its V and M ([alpha^2]
  // [channels][tiles]) near 16 MiB each: a whole batch for ResNet-18's layers.
  const int64_t perTile = int64_t{m_alpha} * m_alpha * std::max(g.in, g.out);
  m_blockTiles = std::clamp<int64_t>((int64_t{1} << 22) / std::max<int64_t>(perTile, 1), 16, std::max<int64_t>(m_tiles, 16));
  m_u.resize(static_cast<size_t>(m_alpha * m_alpha * g.out * g.in));
  m_weights.resize(static_cast<size_t>(g.out * g.in * 9));
}

// U[xi][o][i] from w: forward w[o][i][3][3]; input gradient w[i][o][3][3] flipped in both axes.
// Kept while the weights are unchanged (inference; a training step changes them).
Status WinogradConv::transformWeights(ExecContext& ctx, const float* weight) {
  const size_t bytes = m_weights.size() * sizeof(float);
  if (m_weightsValid && std::memcmp(m_weights.data(), weight, bytes) == 0) return {};
  std::memcpy(m_weights.data(), weight, bytes);
  const int64_t stride = m_g.out * m_g.in;
  // u[point][o][i]: one kernel's alpha^2 points lie a whole out x in matrix
  // apart. So a span of up to kSpan input channels of one output channel is
  // transformed into `span` (kWeightLanes kernels at a time, a lane each),
  // then each point's row of the span is written at once: alpha^2 long
  // sequential runs. One kernel at a time, a float per point touched a cache
  // line each, in scalar double: in training, where the weights change every
  // step, a sixth of a ResNet-18 step.
  auto outChannels = [&](int64_t o0, int64_t o1) {
    constexpr int64_t L = kWeightLanes, kSpan = 512;
    float g[9 * L] = {};
    std::array<float, 36 * kSpan> span;  // kSpan a multiple of L: the last run's unused lanes fit
    const int64_t points = int64_t{m_alpha} * m_alpha;
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t s0 = 0; s0 < m_g.in; s0 += kSpan) {
        const int64_t width = std::min(kSpan, m_g.in - s0);
        for (int64_t i0 = s0; i0 < s0 + width; i0 += L) {
          const int64_t n = std::min(L, s0 + width - i0);
          for (int64_t l = 0; l < n; ++l) {
            const float* k = weight + (m_gradInput ? (i0 + l) * m_g.out + o : o * m_g.in + i0 + l) * 9;
            for (int r = 0; r < 3; ++r)
              for (int c = 0; c < 3; ++c) g[(r * 3 + c) * L + l] = m_gradInput ? k[(2 - r) * 3 + (2 - c)] : k[r * 3 + c];
          }
          if (m_m == 2) weightTransform<2>(g, span.data() + (i0 - s0), kSpan);
          else weightTransform<4>(g, span.data() + (i0 - s0), kSpan);
        }
        for (int64_t p = 0; p < points; ++p)
          std::memcpy(m_u.data() + p * stride + o * m_g.in + s0, span.data() + p * kSpan,
                      static_cast<size_t>(width) * sizeof(float));
      }
  };
  DFC_TRY(ctx.pool().parallelFor(0, m_g.out, grainOf(m_g.in * 64), outChannels));
  m_weightsValid = true;
  return {};
}

// One block in three phases over the pool: the input transform split by input
// channel, the alpha^2 GEMMs split by transform point (each on one thread),
// the output transform split by output channel.
Status WinogradConv::block(ExecContext& ctx, const float* x, const float* bias, float* y, int64_t t0, int64_t t1,
                           float* v, float* mBuf) const {
  const BlockArgs b{m_g, m_tilesW, m_tilesH * m_tilesW, t0, t1};
  const int64_t nb = t1 - t0, points = int64_t{m_alpha} * m_alpha, planeWork = points * nb * 4;
  support::ThreadPool& pool = ctx.pool();
  DFC_TRY(pool.parallelFor(0, m_g.in, grainOf(planeWork), [&](int64_t c0, int64_t c1) {
    if (m_m == 2) transformBlockInput<2>(b, x, v, c0, c1);
    else transformBlockInput<4>(b, x, v, c0, c1);
  }));
  DFC_TRY(pool.parallelFor(0, points, 1, [&](int64_t p0, int64_t p1) -> Status {
    for (int64_t p = p0; p < p1; ++p)
      DFC_TRY(sgemmOnThisThread({false, false, m_g.out, nb, m_g.in, 1.0f, m_u.data() + p * m_g.out * m_g.in, m_g.in,
                                 v + p * m_g.in * nb, nb, 0.0f, mBuf + p * m_g.out * nb, nb}));
    return {};
  }));
  return pool.parallelFor(0, m_g.out, grainOf(planeWork), [&](int64_t o0, int64_t o1) {
    if (m_m == 2) transformBlockOutput<2>(b, mBuf, bias, y, o0, o1);
    else transformBlockOutput<4>(b, mBuf, bias, y, o0, o1);
  });
}

Status WinogradConv::run(ExecContext& ctx, const float* x, const float* weight, const float* bias, float* y) {
  DFC_TRY(transformWeights(ctx, weight));
  // Blocks never depend on the thread count (nor do the GEMMs' shapes, so neither do results).
  const int64_t points = int64_t{m_alpha} * m_alpha;
  float* v = ctx.scratch(static_cast<size_t>(points * m_blockTiles * (m_g.in + m_g.out)));
  float* mBuf = v + points * m_blockTiles * m_g.in;
  for (int64_t t0 = 0; t0 < m_tiles; t0 += m_blockTiles)
    DFC_TRY(block(ctx, x, bias, y, t0, std::min(m_tiles, t0 + m_blockTiles), v, mBuf));
  return {};
}

}  // namespace dfc::runtime::kernels
