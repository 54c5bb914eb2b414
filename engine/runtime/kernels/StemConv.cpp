#include "runtime/kernels/StemConv.h"

#include <immintrin.h>

#include <algorithm>

#include "runtime/kernels/Avx512Activation.h"

namespace dfc::runtime::kernels {
namespace {

constexpr int64_t kLanes = 16;  // output columns per vector, and output channels per block

// The padded copy of one input channel: rows 0 .. 2 * oh (the last kernel
// row's reach), each kPitch(g) floats: the 16-column vector v reads columns
// 32v .. 32v + 33.
int64_t vectorsPerRow(const StemGeometry& g) { return (g.ow + kLanes - 1) / kLanes; }
int64_t pitch(const StemGeometry& g) { return 2 * kLanes * vectorsPerRow(g) + kLanes; }
int64_t paddedRows(const StemGeometry& g) { return 2 * g.oh + 1; }
int64_t blocks(const StemGeometry& g) { return (g.o + kLanes - 1) / kLanes; }
int64_t paddedFloats(const StemGeometry& g) { return g.n * g.c * paddedRows(g) * pitch(g); }

// Channel plane p (image p / c, channel p % c) into its zero-padded copy.
void padPlane(const StemGeometry& g, const float* x, float* padded, int64_t p) {
  const int64_t rows = paddedRows(g), q = pitch(g);
  const int64_t width = std::min(g.w, q - g.pw);
  for (int64_t r = 0; r < rows; ++r) {
    float* out = padded + (p * rows + r) * q;
    const int64_t iy = r - g.ph;
    if (iy < 0 || iy >= g.h) {
      std::fill(out, out + q, 0.0f);
      continue;
    }
    std::fill(out, out + g.pw, 0.0f);
    std::copy_n(x + (p * g.h + iy) * g.w, width, out + g.pw);
    std::fill(out + g.pw + width, out + q, 0.0f);
  }
}

// w [o, c, 3, 3] as [block][c][3][3][16 output channels], zeros past o; the bias as [block][16].
void pack(const StemGeometry& g, const float* w, const float* bias, float* packed, float* packedBias) {
  const int64_t taps = g.c * 9;
  std::fill(packed, packed + blocks(g) * taps * kLanes, 0.0f);
  std::fill(packedBias, packedBias + blocks(g) * kLanes, 0.0f);
  for (int64_t o = 0; o < g.o; ++o) {
    for (int64_t t = 0; t < taps; ++t) packed[((o / kLanes) * taps + t) * kLanes + o % kLanes] = w[o * taps + t];
    if (bias) packedBias[o] = bias[o];
  }
}

struct Operands {
  const float *padded, *packed, *bias, *skip;
  float* y;
  const ConvEpilogue* act;
};

#define DFC_STEM_TARGET __attribute__((target("avx512f,prfchw")))

// The 16 output channels' sums at image b, row oy, columns 16v .. 16v + 15.
DFC_STEM_TARGET inline void sums(const StemGeometry& g, const Operands& a, int64_t block, int64_t b, int64_t oy,
                                 int64_t v, __m512 (&acc)[kLanes]) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const int64_t q = pitch(g), rows = paddedRows(g);
  const float* wb = a.packed + block * g.c * 9 * kLanes;
#pragma GCC unroll 16
  for (int k = 0; k < kLanes; ++k) acc[k] = _mm512_set1_ps(a.bias[block * kLanes + k]);
  for (int64_t ch = 0; ch < g.c; ++ch)
    for (int64_t i = 0; i < 3; ++i) {
      const float* row = a.padded + ((b * g.c + ch) * rows + 2 * oy + i) * q + 2 * kLanes * v;
      const __m512 lo = _mm512_loadu_ps(row), hi = _mm512_loadu_ps(row + 16);
      const __m512 x0 = _mm512_permutex2var_ps(lo, even, hi), x1 = _mm512_permutex2var_ps(lo, odd, hi);
      const __m512 x2 = _mm512_permutex2var_ps(_mm512_loadu_ps(row + 2), even, _mm512_loadu_ps(row + 18));
      const float* wk = wb + (ch * 3 + i) * 3 * kLanes;
#pragma GCC unroll 16
      for (int k = 0; k < kLanes; ++k) {
        acc[k] = _mm512_fmadd_ps(_mm512_set1_ps(wk[k]), x0, acc[k]);
        acc[k] = _mm512_fmadd_ps(_mm512_set1_ps(wk[kLanes + k]), x1, acc[k]);
        acc[k] = _mm512_fmadd_ps(_mm512_set1_ps(wk[2 * kLanes + k]), x2, acc[k]);
      }
    }
}

// Output row oy of image b, channels of block `block`; the accumulators stay
// in registers through the stores, and the next vector's output lines are
// fetched for writing while this one's sums run (StemConv.h says why).
template <ConvActivation kAct>
DFC_STEM_TARGET void row(const StemGeometry& g, const Operands& a, int64_t block, int64_t b, int64_t oy) {
  const int64_t nv = vectorsPerRow(g), channels = std::min(kLanes, g.o - block * kLanes);
  const __m512 lo = _mm512_set1_ps(a.act->lo), hi = _mm512_set1_ps(a.act->hi);
  float* y = a.y + ((b * g.o + block * kLanes) * g.oh + oy) * g.ow;
  const float* skip = a.skip ? a.skip + (y - a.y) : nullptr;
  const int64_t plane = g.oh * g.ow;
  for (int64_t v = 0; v < nv; ++v) {
    if (v + 1 < nv)
      for (int64_t k = 0; k < channels; ++k) __builtin_prefetch(y + k * plane + kLanes * (v + 1), 1, 3);
    __m512 acc[kLanes];
    sums(g, a, block, b, oy, v, acc);
    const int64_t columns = std::min(kLanes, g.ow - kLanes * v);
    const __mmask16 mask = static_cast<__mmask16>((1u << columns) - 1);
#pragma GCC unroll 16
    for (int64_t k = 0; k < kLanes; ++k) {
      if (k >= channels) break;
      const int64_t at = k * plane + kLanes * v;
      __m512 out = acc[k];
      if (skip) out = _mm512_add_ps(out, _mm512_maskz_loadu_ps(mask, skip + at));
      _mm512_mask_storeu_ps(y + at, mask, activate512(kAct, out, lo, hi));
    }
  }
}

using RowFn = void (*)(const StemGeometry&, const Operands&, int64_t, int64_t, int64_t);

RowFn rowFor(ConvActivation act) {
  switch (act) {
    case ConvActivation::Relu:
      return row<ConvActivation::Relu>;
    case ConvActivation::Clip:
      return row<ConvActivation::Clip>;
    case ConvActivation::Silu:
      return row<ConvActivation::Silu>;
    case ConvActivation::HardSwish:
      return row<ConvActivation::HardSwish>;
    case ConvActivation::None:
      break;
  }
  return row<ConvActivation::None>;
}

}  // namespace

bool stemConvAvailable() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

int64_t stemScratchFloats(const StemGeometry& g) { return paddedFloats(g) + blocks(g) * (g.c * 9 + 1) * kLanes; }

Status runStemConv(support::ThreadPool& pool, const StemGeometry& g, const ConvEpilogue& act, const float* x,
                   const float* w, const float* bias, const float* skip, float* y, float* scratch) {
  if (!stemConvAvailable()) return internalError("the stem convolution kernel needs AVX-512F");
  if (g.n <= 0 || g.o <= 0 || g.oh <= 0 || g.ow <= 0) return {};
  float* packed = scratch + paddedFloats(g);
  float* packedBias = packed + blocks(g) * g.c * 9 * kLanes;
  pack(g, w, bias, packed, packedBias);
  DFC_TRY(pool.parallelFor(0, g.n * g.c, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) padPlane(g, x, scratch, p);
  }));
  const Operands a{scratch, packed, packedBias, skip, y, &act};
  const int64_t nb = blocks(g);
  const RowFn rowFn = rowFor(act.activation);
  // Rows of all images; each row runs every channel block while its input rows are in L1.
  return pool.parallelFor(0, g.n * g.oh, 4, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t block = 0; block < nb; ++block) rowFn(g, a, block, r / g.oh, r % g.oh);
  });
}

}  // namespace dfc::runtime::kernels
