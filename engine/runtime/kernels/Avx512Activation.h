#pragma once
// relu, clip, silu and hard-swish on a vector of 16 outputs, for the AVX-512 kernels
// (Pointwise, StemConv, DepthwiseLanes): as applyActivation (Epilogue.h)
// computes them, since max and min return their second operand when either
// is a NaN: relu(NaN) = 0 (x > 0 ? x : 0) and a clip keeps the NaN. silu
// takes fastSilu's steps (FastMath.h, FastUnary.cpp) one for one, each
// rounded as there, so a fused SiLU has the unary op's bits. The maskz
// forms: GCC 12's plain _mm512_max_ps starts from an undefined vector and
// warns at -O3.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/Epilogue.h"

namespace dfc::runtime::kernels {

// fastExp for x <= 0 (or a NaN, kept): 0 below -87. No clamp is needed
// there (a lane below -87 is masked to 0 whatever its sums give), and 2^n is
// put in by scalef rather than built in the exponent bits: both round e^r *
// 2^n once, so the bits are fastExp's, in 14 operations instead of 19 (SiLU
// 0.40 -> 0.36 ns an element on Zen 4).
__attribute__((target("avx512f"), always_inline)) inline __m512 expNonPositive512(__m512 x) {
  const __m512 kRound = _mm512_set1_ps(12582912.0f);
  const __mmask16 kept = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_NLT_UQ);  // not x < -87
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), kRound);
  const __m512 n = _mm512_sub_ps(t, kRound);
  const __m512 r =
      _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  const __m512 er = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_maskz_scalef_ps(kept, er, n);
}

// fastSilu: x * sigmoid(x), sigmoid from e^-|x| (-x flipped by its sign bit, as the scalar negation).
__attribute__((target("avx512f"), always_inline)) inline __m512 silu512(__m512 x) {
  const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 flipped = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  const __m512 e = expNonPositive512(_mm512_mask_blend_ps(negative, flipped, x));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 s = _mm512_div_ps(one, _mm512_add_ps(one, e));
  return _mm512_mul_ps(x, _mm512_mask_mul_ps(s, negative, e, s));
}

__attribute__((target("avx512f"), always_inline)) inline __m512 activate512(ConvActivation act, __m512 v, __m512 lo,
                                                                            __m512 hi) {
  constexpr __mmask16 all = 0xFFFF;
  if (act == ConvActivation::Relu) return _mm512_maskz_max_ps(all, v, _mm512_setzero_ps());
  if (act == ConvActivation::Clip) return _mm512_maskz_min_ps(all, hi, _mm512_maskz_max_ps(all, lo, v));
  if (act == ConvActivation::Silu) return silu512(v);
  // hardSwish (FastUnary.cpp): x * clamp(x / 6 + 0.5, 0, 1), no fused multiply-add.
  if (act == ConvActivation::HardSwish) {
    const __m512 t = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(1.0f / 6.0f)), _mm512_set1_ps(0.5f));
    return _mm512_mul_ps(
        v, _mm512_maskz_min_ps(all, _mm512_set1_ps(1.0f), _mm512_maskz_max_ps(all, _mm512_setzero_ps(), t)));
  }
  return v;
}

__attribute__((target("avx512f"), always_inline)) inline __m512 activate512(const ConvEpilogue& e, __m512 v) {
  return activate512(e.activation, v, _mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
}

}  // namespace dfc::runtime::kernels
