#pragma once
// relu and clip on a vector of 16 outputs, for the AVX-512 kernels
// (Pointwise, StemConv, DepthwiseLanes): as applyActivation (Epilogue.h)
// computes them, since max and min return their second operand when either
// is a NaN: relu(NaN) = 0 (x > 0 ? x : 0) and a clip keeps the NaN. The maskz
// forms: GCC 12's plain _mm512_max_ps starts from an undefined vector and
// warns at -O3.
#include <immintrin.h>

#include "runtime/kernels/Epilogue.h"

namespace dfc::runtime::kernels {

__attribute__((target("avx512f"), always_inline)) inline __m512 activate512(ConvActivation act, __m512 v, __m512 lo,
                                                                            __m512 hi) {
  constexpr __mmask16 all = 0xFFFF;
  if (act == ConvActivation::Relu) return _mm512_maskz_max_ps(all, v, _mm512_setzero_ps());
  if (act == ConvActivation::Clip) return _mm512_maskz_min_ps(all, hi, _mm512_maskz_max_ps(all, lo, v));
  return v;
}

__attribute__((target("avx512f"), always_inline)) inline __m512 activate512(const ConvEpilogue& e, __m512 v) {
  return activate512(e.activation, v, _mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
}

}  // namespace dfc::runtime::kernels
