#include "runtime/kernels/DepthwiseLanes.h"

// GCC 12 inlines AVX-512 shuffles and min/max as masked builtins that start
// from _mm512_undefined_ps() and then warns that the vector is uninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "runtime/kernels/Avx512Activation.h"
#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

constexpr int64_t kLanes = 16;
#define DFC_AVX512 __attribute__((target("avx512f")))

// One block's geometry and buffers (one thread's): the padded input, the output positions, weights and bias by lane.
struct Block {
  const ConvGeometry* g = nullptr;
  int64_t wp = 0;            // padded columns
  float* padded = nullptr;   // [hp][wp][16], its border zero
  float* out = nullptr;      // [oh * ow][16]
  float* weights = nullptr;  // [kh * kw][16]
  float* bias = nullptr;     // [16]
  int64_t lanes = 16;        // channels in this block (the last may have fewer)
};

DFC_AVX512 __mmask16 laneMask(int64_t lanes) { return static_cast<__mmask16>((1u << lanes) - 1u); }

// v[j][i] = v[i][j], a 16 x 16 block in registers: pairs within 128-bit lanes,
// then quads, then the 128-bit lanes themselves (64 shuffles for 256 floats;
// a gather per vector costs more on CPUs with the gather-sampling fix).
DFC_AVX512 inline __attribute__((always_inline)) void transpose16(__m512 (&v)[16]) {
  __m512 t[16], u[16];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_ps(v[2 * k], v[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_ps(v[2 * k], v[2 * k + 1]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512d t0 = _mm512_castps_pd(t[4 * k]), t1 = _mm512_castps_pd(t[4 * k + 1]);
    const __m512d t2 = _mm512_castps_pd(t[4 * k + 2]), t3 = _mm512_castps_pd(t[4 * k + 3]);
    u[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    u[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    u[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    u[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  // u[4k + m], 128-bit lane L: rows 4k..4k+3 at column 4L + m.
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    const __m512 s1 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88), s2 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD);
    const __m512 s3 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
    const __m512 s4 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
    v[m] = _mm512_shuffle_f32x4(s1, s3, 0x88);
    v[8 + m] = _mm512_shuffle_f32x4(s1, s3, 0xDD);
    v[4 + m] = _mm512_shuffle_f32x4(s2, s4, 0x88);
    v[12 + m] = _mm512_shuffle_f32x4(s2, s4, 0xDD);
  }
}

// padded[(iy + padTop) * wp + ix + padLeft][l] = x[l][iy][ix]: 16 columns of the block's rows at a time.
DFC_AVX512 void gatherBlock(const Block& b, const float* x) {
  const ConvGeometry& g = *b.g;
  const int64_t plane = g.h * g.w;
  for (int64_t iy = 0; iy < g.h; ++iy) {
    float* dst = b.padded + ((iy + g.padTop) * b.wp + g.padLeft) * kLanes;
    for (int64_t ix = 0; ix < g.w; ix += kLanes) {
      const int64_t count = std::min(kLanes, g.w - ix);
      const __mmask16 m = laneMask(count);
      const float* src = x + iy * g.w + ix;
      __m512 v[16];
#pragma GCC unroll 16
      for (int l = 0; l < 16; ++l) v[l] = _mm512_maskz_loadu_ps(l < b.lanes ? m : 0, src + l * plane);
      transpose16(v);
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        if (j < count) _mm512_storeu_ps(dst + (ix + j) * kLanes, v[j]);
    }
  }
}

// out[p] = act(bias + taps) for every output position p, any kernel (the weights read from memory).
DFC_AVX512 void laneTapsAnyKernel(const Block& b, const ConvEpilogue& e) {
  const ConvGeometry& g = *b.g;
  const ConvActivation act = e.activation;  // a local: the stores below could alias e
  const __m512 bias = _mm512_loadu_ps(b.bias), lo = _mm512_set1_ps(e.lo), hi = _mm512_set1_ps(e.hi);
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const float* at = b.padded + (oy * g.sh * b.wp + ox * g.sw) * kLanes;
      __m512 acc = bias;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j)
          acc = _mm512_fmadd_ps(_mm512_loadu_ps(b.weights + (i * g.kw + j) * kLanes),
                                _mm512_loadu_ps(at + (i * g.dh * b.wp + j * g.dw) * kLanes), acc);
      _mm512_storeu_ps(b.out + (oy * g.ow + ox) * kLanes, activate512(act, acc, lo, hi));
    }
}

// The same for a K x K kernel, not dilated: the K * K weight vectors stay in
// registers, and two output positions at a time give two chains of
// multiply-adds to overlap (a position's own chain is K * K long).
template <int K>
DFC_AVX512 void laneTaps(const Block& b, const ConvEpilogue& e) {
  const ConvGeometry& g = *b.g;
  const int64_t oh = g.oh, ow = g.ow, wp = b.wp, step = g.sw * kLanes;
  const ConvActivation act = e.activation;
  const __m512 bias = _mm512_loadu_ps(b.bias), lo = _mm512_set1_ps(e.lo), hi = _mm512_set1_ps(e.hi);
  __m512 w[K * K];
#pragma GCC unroll 25
  for (int t = 0; t < K * K; ++t) w[t] = _mm512_loadu_ps(b.weights + t * kLanes);
  for (int64_t oy = 0; oy < oh; ++oy) {
    const float* row = b.padded + oy * g.sh * wp * kLanes;
    float* dst = b.out + oy * ow * kLanes;
    int64_t ox = 0;
    for (; ox + 2 <= ow; ox += 2) {
      const float* at = row + ox * step;
      __m512 a0 = bias, a1 = bias;
#pragma GCC unroll 5
      for (int i = 0; i < K; ++i)
#pragma GCC unroll 5
        for (int j = 0; j < K; ++j) {
          const float* tap = at + (i * wp + j) * kLanes;
          a0 = _mm512_fmadd_ps(w[i * K + j], _mm512_loadu_ps(tap), a0);
          a1 = _mm512_fmadd_ps(w[i * K + j], _mm512_loadu_ps(tap + step), a1);
        }
      _mm512_storeu_ps(dst + ox * kLanes, activate512(act, a0, lo, hi));
      _mm512_storeu_ps(dst + (ox + 1) * kLanes, activate512(act, a1, lo, hi));
    }
    if (ox < ow) {
      const float* at = row + ox * step;
      __m512 a0 = bias;
#pragma GCC unroll 5
      for (int i = 0; i < K; ++i)
#pragma GCC unroll 5
        for (int j = 0; j < K; ++j) a0 = _mm512_fmadd_ps(w[i * K + j], _mm512_loadu_ps(at + (i * wp + j) * kLanes), a0);
      _mm512_storeu_ps(dst + ox * kLanes, activate512(act, a0, lo, hi));
    }
  }
}

// y[l][p] = out[p][l], l < lanes: 16 positions at a time.
DFC_AVX512 void scatterBlock(const Block& b, float* y) {
  const int64_t positions = b.g->oh * b.g->ow;
  for (int64_t p = 0; p < positions; p += kLanes) {
    const int64_t count = std::min(kLanes, positions - p);
    const __mmask16 m = laneMask(count);
    __m512 v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) v[j] = _mm512_maskz_loadu_ps(j < count ? 0xFFFF : 0, b.out + (p + j) * kLanes);
    transpose16(v);
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l)
      if (l < b.lanes) _mm512_mask_storeu_ps(y + l * positions + p, m, v[l]);
  }
}

// Lane l of the block's weights and bias is channel c0 + l (zero past b.lanes).
void laneWeights(const Block& b, const float* w, const float* bias, int64_t c0) {
  const int64_t taps = b.g->kh * b.g->kw;
  for (int64_t l = 0; l < kLanes; ++l) {
    for (int64_t t = 0; t < taps; ++t) b.weights[t * kLanes + l] = l < b.lanes ? w[(c0 + l) * taps + t] : 0.0f;
    b.bias[l] = l < b.lanes && bias ? bias[c0 + l] : 0.0f;
  }
}

// This thread's buffers for g's blocks, the padded input's border zeroed (each block writes only the image's part).
Block threadBlock(const ConvGeometry& g) {
  Block b;
  b.g = &g;
  b.wp = g.w + g.padLeft + g.padRight;
  const int64_t padded = (g.h + g.padTop + g.padBottom) * b.wp * kLanes, out = g.oh * g.ow * kLanes;
  const int64_t total = padded + out + (g.kh * g.kw + 1) * kLanes;
  thread_local std::vector<float> buffer;
  // The padded plane whose border is zero now: a thread runs several chunks of
  // one conv (8 at 2 threads), and zeroing 16 KB each time took a tenth of a 14x14 conv.
  thread_local struct {
    const float* at = nullptr;
    int64_t h = 0, w = 0, top = 0, bottom = 0, left = 0, right = 0;
  } zeroed;
  b.padded = lineAligned(buffer, total);
  if (zeroed.at != b.padded || zeroed.h != g.h || zeroed.w != g.w || zeroed.top != g.padTop ||
      zeroed.bottom != g.padBottom || zeroed.left != g.padLeft || zeroed.right != g.padRight) {
    std::fill(b.padded, b.padded + padded, 0.0f);
    zeroed = {b.padded, g.h, g.w, g.padTop, g.padBottom, g.padLeft, g.padRight};
  }
  b.out = b.padded + padded;
  b.weights = b.out + out;
  b.bias = b.weights + g.kh * g.kw * kLanes;
  return b;
}

void runBlock(Block& b, const ConvEpilogue& e) {
  const ConvGeometry& g = *b.g;
  if (g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1) return laneTaps<3>(b, e);
  if (g.kh == 5 && g.kw == 5 && g.dh == 1 && g.dw == 1) return laneTaps<5>(b, e);
  laneTapsAnyKernel(b, e);
}

}  // namespace

bool laneDepthwiseAvailable(const ConvGeometry& g) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool pads = g.padTop >= 0 && g.padLeft >= 0 && g.padBottom >= 0 && g.padRight >= 0;
  const int64_t offsetLimit = std::numeric_limits<int32_t>::max() / kLanes;
  return avx512 && g.group == g.c && g.o == g.c && g.c > 0 && pads && g.h * g.w < offsetLimit && g.oh > 0 && g.ow > 0;
}

Status runLaneDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                        const float* w, const float* bias, float* y) {
  if (!laneDepthwiseAvailable(g)) return internalError("lane depthwise kernel given a convolution it does not take");
  const int64_t blocks = (g.c + kLanes - 1) / kLanes, inPlane = g.h * g.w, outPlane = g.oh * g.ow;
  return pool.parallelFor(0, g.n * blocks, grainOf(outPlane * g.kh * g.kw * kLanes), [&](int64_t lo, int64_t hi) {
    Block b = threadBlock(g);
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t image = task / blocks, c0 = task % blocks * kLanes;
      b.lanes = std::min(kLanes, g.c - c0);
      laneWeights(b, w, bias, c0);
      gatherBlock(b, x + (image * g.c + c0) * inPlane);
      runBlock(b, e);
      scatterBlock(b, y + (image * g.c + c0) * outPlane);
    }
  });
}

}  // namespace dfc::runtime::kernels
