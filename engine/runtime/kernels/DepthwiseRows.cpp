#include "runtime/kernels/DepthwiseRows.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "runtime/Kernel.h"
#include "runtime/kernels/Avx512Activation.h"
#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

constexpr int64_t kLanes = 16;  // output columns a vector
#define DFC_AVX512 __attribute__((target("avx512f")))
#define DFC_INLINE inline __attribute__((always_inline))
// The maskz forms: GCC 12's plain alignr starts from an undefined vector and warns at -O3.
constexpr __mmask16 kAll = 0xFFFF;

// The widest left padding taken: a padded row keeps its columns 16 - 1 + padLeft floats in.
constexpr int64_t kMaxPadLeft = 8;

// A padded row: input column c at [c + 15 + padLeft], zeros around it, on a
// 64-byte line, so that tap j of output column ox reads [S * ox + 15 + j]:
// the 16 outputs from ox take their taps from the aligned vectors at S * ox
// and the next one or two (Zen 4 splits an unaligned 64-byte load in two).
// Rows are copied a pair of output rows ahead of their use: a load of a line
// just stored in pieces waits for the stores to reach the cache.
constexpr int64_t kRing = 10;  // the input rows of two pairs of output rows at stride 2 (9)

struct RowBuffers {
  int64_t pitch = 0;       // floats a row, a multiple of 16
  float* ring = nullptr;   // input row iy in ring[iy % kRing]
  float* zeros = nullptr;  // a row in the padding
  int64_t held[kRing] = {};
};

int64_t pitchOf(const ConvGeometry& g) {
  const int64_t outputs = (g.ow + kLanes - 1) / kLanes * kLanes;
  return (std::max(g.sw * outputs, g.w + 16 + kMaxPadLeft) + 3 * kLanes + kLanes - 1) / kLanes * kLanes;
}

RowBuffers threadRows(const ConvGeometry& g) {
  RowBuffers b;
  b.pitch = pitchOf(g);
  thread_local std::vector<float> buffer;
  b.ring = lineAligned(buffer, (kRing + 1) * b.pitch);
  std::fill(b.ring, b.ring + (kRing + 1) * b.pitch, 0.0f);  // the padding; rows only ever write the image's columns
  b.zeros = b.ring + kRing * b.pitch;
  return b;
}

// dst[0, n) = src[0, n), 16 floats a store.
DFC_AVX512 void copyRow(float* dst, const float* src, int64_t n) {
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) _mm512_storeu_ps(dst + c, _mm512_loadu_ps(src + c));
  if (c < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - c)) - 1u);
    _mm512_mask_storeu_ps(dst + c, tail, _mm512_maskz_loadu_ps(tail, src + c));
  }
}

// Input row iy of plane x in padded form (its padding columns zero), or the zero row.
const float* paddedRow(const ConvGeometry& g, RowBuffers& b, const float* x, int64_t iy) {
  if (iy < 0 || iy >= g.h) return b.zeros;
  float* row = b.ring + iy % kRing * b.pitch;
  if (b.held[iy % kRing] != iy) {
    copyRow(row + kLanes - 1 + g.padLeft, x + iy * g.w, g.w);
    b.held[iy % kRing] = iy;
  }
  return row;
}

// The padded input rows of output rows oy and oy + 1: S + 3 of them.
template <int S>
void rowsOf(const ConvGeometry& g, RowBuffers& b, const float* x, int64_t oy, const float* (&rows)[5]) {
  const int64_t iy = oy * S - g.padTop;
  for (int i = 0; i < S + 3; ++i) rows[i] = paddedRow(g, b, x, iy + i);
}

// One channel's weights and bias, and the activation's bounds, in registers.
struct Taps {
  __m512 k[9];
  __m512 bias, lo, hi;
};

// The three tap vectors of one padded row for the 16 outputs whose first tap
// is at [at + 15]. Stride 1: the vectors at at, at + 16, at + 32 hold taps 0,
// 1, 2 shifted by 15, 0, 1. Stride 2: at + 16 and at + 32 hold the 32
// columns, split into the even ones (tap 1) and the odd ones (tap 2); tap 0
// is the odd ones shifted by one, the first from at.
struct Row3 {
  __m512 tap[3];
};

template <int S>
DFC_AVX512 DFC_INLINE Row3 tapsAt(const float* at) {
  const __m512 before = _mm512_load_ps(at), a = _mm512_load_ps(at + 16), b = _mm512_load_ps(at + 32);
  if constexpr (S == 1) {
    const __m512i left = _mm512_maskz_alignr_epi32(kAll, _mm512_castps_si512(a), _mm512_castps_si512(before), 15);
    const __m512i right = _mm512_maskz_alignr_epi32(kAll, _mm512_castps_si512(b), _mm512_castps_si512(a), 1);
    return {{_mm512_castsi512_ps(left), a, _mm512_castsi512_ps(right)}};
  } else {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512 odd = _mm512_permutex2var_ps(a, _mm512_add_epi32(even, _mm512_set1_epi32(1)), b);
    const __m512i left = _mm512_maskz_alignr_epi32(kAll, _mm512_castps_si512(odd), _mm512_castps_si512(before), 15);
    return {{_mm512_castsi512_ps(left), _mm512_permutex2var_ps(a, even, b), odd}};
  }
}

// A kernel row's three taps onto acc.
DFC_AVX512 DFC_INLINE __m512 addRow(const __m512* k, const Row3& r, __m512 acc) {
  acc = _mm512_fmadd_ps(k[0], r.tap[0], acc);
  acc = _mm512_fmadd_ps(k[1], r.tap[1], acc);
  return _mm512_fmadd_ps(k[2], r.tap[2], acc);
}

// Bias plus the kernel's rows from input rows r[0..2], a chain per kernel
// row (one chain of nine would wait on each multiply-add), then the activation.
template <ConvActivation A>
DFC_AVX512 DFC_INLINE __m512 outputOf(const Taps& t, const Row3& r0, const Row3& r1, const Row3& r2) {
  const __m512 top = addRow(t.k, r0, t.bias), middle = addRow(t.k + 3, r1, _mm512_setzero_ps());
  const __m512 bottom = addRow(t.k + 6, r2, _mm512_setzero_ps());
  return activate512(A, _mm512_add_ps(_mm512_add_ps(top, middle), bottom), t.lo, t.hi);
}

DFC_AVX512 DFC_INLINE void storeOutputs(float* dst, int64_t ox, int64_t ow, __m512 out) {
  if (ox + kLanes <= ow)
    _mm512_storeu_ps(dst + ox, out);
  else
    _mm512_mask_storeu_ps(dst + ox, static_cast<__mmask16>((1u << (ow - ox)) - 1u), out);
}

// Two output rows from their padded input rows (S + 3 of them: the rows they
// share are split into taps once), 16 columns at a time.
template <int S, ConvActivation A>
DFC_AVX512 void outputRowPair(const Taps& taps, const float* const (&rows)[5], int64_t ow, float* dst0, float* dst1) {
  const Taps t = taps;  // a copy in registers: __m512 may alias the floats stored below
  for (int64_t ox = 0; ox < ow; ox += kLanes) {
    const int64_t at = S * ox;
    const Row3 r0 = tapsAt<S>(rows[0] + at), r1 = tapsAt<S>(rows[1] + at), r2 = tapsAt<S>(rows[2] + at);
    const Row3 r3 = tapsAt<S>(rows[3] + at);
    storeOutputs(dst0, ox, ow, outputOf<A>(t, r0, r1, r2));
    if constexpr (S == 1) {
      storeOutputs(dst1, ox, ow, outputOf<A>(t, r1, r2, r3));
    } else {
      storeOutputs(dst1, ox, ow, outputOf<A>(t, r2, r3, tapsAt<S>(rows[4] + at)));
    }
  }
}

// One output row (the last of an odd count).
template <int S, ConvActivation A>
DFC_AVX512 void outputRow(const Taps& taps, const float* const (&rows)[5], int64_t ow, float* dst) {
  const Taps t = taps;
  for (int64_t ox = 0; ox < ow; ox += kLanes) {
    const int64_t at = S * ox;
    storeOutputs(dst, ox, ow,
                 outputOf<A>(t, tapsAt<S>(rows[0] + at), tapsAt<S>(rows[1] + at), tapsAt<S>(rows[2] + at)));
  }
}

// Output plane y [oh, ow] of one channel from its input plane x [h, w].
template <int S, ConvActivation A>
DFC_AVX512 void channelPlane(const ConvGeometry& g, const Taps& t, RowBuffers& b, const float* x, float* y) {
  std::fill(b.held, b.held + kRing, -1);
  const float* rows[5] = {};
  const float* next[5] = {};
  rowsOf<S>(g, b, x, 0, next);
  for (int64_t oy = 0; oy < g.oh; oy += 2) {
    std::copy(next, next + 5, rows);
    if (oy + 2 < g.oh) rowsOf<S>(g, b, x, oy + 2, next);  // copied while these rows compute
    if (oy + 1 < g.oh)
      outputRowPair<S, A>(t, rows, g.ow, y + oy * g.ow, y + (oy + 1) * g.ow);
    else
      outputRow<S, A>(t, rows, g.ow, y + oy * g.ow);
  }
}

using PlaneFn = void (*)(const ConvGeometry&, const Taps&, RowBuffers&, const float*, float*);

template <int S>
PlaneFn planeFor(ConvActivation act) {
  switch (act) {
    case ConvActivation::Relu:
      return channelPlane<S, ConvActivation::Relu>;
    case ConvActivation::Clip:
      return channelPlane<S, ConvActivation::Clip>;
    case ConvActivation::Silu:
      return channelPlane<S, ConvActivation::Silu>;
    case ConvActivation::HardSwish:
      return channelPlane<S, ConvActivation::HardSwish>;
    default:
      return channelPlane<S, ConvActivation::None>;
  }
}

DFC_AVX512 Taps tapsOf(const ConvEpilogue& e, const float* w, float bias) {
  Taps t;
  for (int j = 0; j < 9; ++j) t.k[j] = _mm512_set1_ps(w[j]);
  t.bias = _mm512_set1_ps(bias);
  t.lo = _mm512_set1_ps(e.lo);
  t.hi = _mm512_set1_ps(e.hi);
  return t;
}

}  // namespace

bool rowDepthwiseAvailable(const ConvGeometry& g) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool pads = g.padTop >= 0 && g.padLeft >= 0 && g.padLeft <= kMaxPadLeft && g.padBottom >= 0 && g.padRight >= 0;
  return avx512 && g.group == g.c && g.o == g.c && g.c > 0 && g.kh == 3 && g.kw == 3 && g.dh == 1 && g.dw == 1 &&
         g.sh == g.sw && (g.sh == 1 || g.sh == 2) && pads && g.oh > 0 && g.ow > 0;
}

Status runRowDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                       const float* w, const float* bias, float* y) {
  if (!rowDepthwiseAvailable(g)) return internalError("row depthwise kernel given a convolution it does not take");
  const int64_t inPlane = g.h * g.w, outPlane = g.oh * g.ow;
  const PlaneFn plane = g.sh == 1 ? planeFor<1>(e.activation) : planeFor<2>(e.activation);
  return pool.parallelFor(0, g.n * g.c, grainOf(outPlane * 9), [&](int64_t lo, int64_t hi) {
    RowBuffers rows = threadRows(g);
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t c = task % g.c;
      plane(g, tapsOf(e, w + c * 9, bias ? bias[c] : 0.0f), rows, x + task * inPlane, y + task * outPlane);
    }
  });
}

}  // namespace dfc::runtime::kernels
