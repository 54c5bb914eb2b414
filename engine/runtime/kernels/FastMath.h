#pragma once
// Branch-free float exp and tanh that GCC vectorizes (the runtime builds with
// -O3 -fno-trapping-math -fno-math-errno): std::tanh and std::exp stay libm
// calls per element, which made GELU a quarter of a GPT-2 training step.
// exp: range reduction x = n ln2 + r with |r| <= ln2/2, a degree-5 minimax
// polynomial for e^r (Cephes' expf coefficients) and 2^n put in the exponent
// bits; relative error about 2 ulp. Inputs are clamped to [-87, 88], where
// 2^n stays a normal float, and below -87 the result is 0: e^-87 is 1.6e-38,
// the smallest normal floats, and what a softmax makes of it (divided by the
// row's sum) would be a denormal, on which x86 multiplies about 100x slower:
// a masked softmax (scores -1e9) gave P@V GEMMs 40x slower than on zeros.
#include <cstdint>
#include <cstring>

// Compute-bound element loops (GELU, SiLU, exp) are built three times, for
// AVX-512, Haswell (AVX2 + FMA) and the baseline, and the loader picks the
// widest the CPU has. The runtime builds with -ffp-contract=off, so no clone
// fuses a multiply-add on its own; the multiply-adds below are explicit
// fmaf, rounded once on every instruction set (the baseline clone calls
// libm's, which glibc runs on the FMA unit where there is one): every clone
// gives the same bits. The FMA form runs SiLU in 0.46 ns an element against
// 0.66 with a multiply and an add, GELU in 0.60 against 0.91 (AVX-512).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DFC_WIDE_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define DFC_WIDE_CLONES
#endif

namespace dfc::runtime::kernels {

inline float fastExp(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits
  const bool underflows = x < -87.0f;
  x = underflows ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float t = __builtin_fmaf(x, kLog2e, kRound);
  const float n = t - kRound;
  const float r = __builtin_fmaf(-n, kLn2Lo, __builtin_fmaf(-n, kLn2Hi, x));
  float p = 1.9875691500e-4f;
  p = __builtin_fmaf(p, r, 1.3981999507e-3f);
  p = __builtin_fmaf(p, r, 8.3334519073e-3f);
  p = __builtin_fmaf(p, r, 4.1665795894e-2f);
  p = __builtin_fmaf(p, r, 1.6666665459e-1f);
  p = __builtin_fmaf(p, r, 5.0000001201e-1f);
  const float er = __builtin_fmaf(p * r, r, r + 1.0f);
  int32_t tb, kb;
  std::memcpy(&tb, &t, sizeof tb);
  std::memcpy(&kb, &kRound, sizeof kb);
  const int32_t bits = (tb - kb + 127) << 23;  // tb - kb = n
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return underflows ? 0.0f : er * scale;
}

// tanh(u) = 1 - 2 / (e^{2u} + 1); near 0 (where that cancels) the odd Taylor
// polynomial, whose next term is below 1e-10 there. Absolute error < 2e-7.
inline float fastTanh(float u) {
  const float big = 1.0f - 2.0f / (fastExp(2.0f * u) + 1.0f);
  const float u2 = u * u;
  const float small = u * __builtin_fmaf(u2, __builtin_fmaf(u2, 2.0f / 15.0f, -1.0f / 3.0f), 1.0f);
  return (u < 0.04f && u > -0.04f) ? small : big;
}

}  // namespace dfc::runtime::kernels
