#include "runtime/kernels/Gemv.h"

#include <immintrin.h>

#include <vector>

namespace dfc::runtime::kernels {
namespace {

#define DFC_AVX512 __attribute__((target("avx512f")))

constexpr int64_t kRowsAtOnce = 16;

// Shorter dot products spend more on adding up their 16 lanes than on the
// products: EfficientNet-B0's squeeze-excite expansions (48 -> 1152) took
// 38 us here against 15 on oneDNN, which runs 16 rows in the lanes instead.
constexpr int64_t kMinDepth = 64;

// The 16 lanes' sum, halves added pairwise (maskz forms: GCC 12's plain
// shuffles and extracts start from an undefined vector and warn at -O3).
DFC_AVX512 inline float horizontalSum(__m512 v) {
  constexpr __mmask16 all = 0xFFFF;
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(all, v, v, 0x4E));  // 256-bit halves swapped
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(all, v, v, 0xB1));  // 128-bit quarters swapped
  v = _mm512_add_ps(v, _mm512_maskz_permute_ps(all, v, 0x4E));        // pairs within a quarter
  v = _mm512_add_ps(v, _mm512_maskz_permute_ps(all, v, 0xB1));        // neighbours
  return _mm512_cvtss_f32(v);
}

// y[r] = alpha * (rows[r] . x) + beta * y[r] for R rows ld apart, k long,
// the R rows after them prefetched into L2 (past the matrix's end a prefetch
// is only a hint, never a fault).
template <int R>
DFC_AVX512 void dotRows(const float* rows, int64_t ld, const float* x, int64_t k, float alpha, float beta, float* y,
                        int64_t yStride) {
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  int64_t c = 0;
  for (; c + 16 <= k; c += 16) {
    const __m512 xv = _mm512_loadu_ps(x + c);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      _mm_prefetch(reinterpret_cast<const char*>(rows + (R + r) * ld + c), _MM_HINT_T1);
      acc[r] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(rows + r * ld + c), acc[r]);
    }
  }
  if (c < k) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (k - c)) - 1u);
    const __m512 xv = _mm512_maskz_loadu_ps(tail, x + c);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail, rows + r * ld + c), acc[r]);
  }
  for (int r = 0; r < R; ++r) {
    float& out = y[r * yStride];
    const float dot = alpha * horizontalSum(acc[r]);
    out = beta == 0.0f ? dot : dot + beta * out;
  }
}

// y[i * yStride] for the `count` rows of `matrix`, 16 at a time.
void dotAllRows(const float* matrix, int64_t ld, int64_t count, const float* x, int64_t k, float alpha, float beta,
                float* y, int64_t yStride) {
  int64_t r = 0;
  for (; r + kRowsAtOnce <= count; r += kRowsAtOnce)
    dotRows<kRowsAtOnce>(matrix + r * ld, ld, x, k, alpha, beta, y + r * yStride, yStride);
  for (; r < count; ++r) dotRows<1>(matrix + r * ld, ld, x, k, alpha, beta, y + r * yStride, yStride);
}

}  // namespace

bool gemvShape(const GemmCall& g) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && g.k >= kMinDepth && ((g.m == 1 && !g.ta && g.tb) || (g.n == 1 && !g.ta));
}

void gemv(const GemmCall& g) {
  if (g.m == 1 && g.tb) {  // c[0][j] = a[0] . b[j]
    dotAllRows(g.b, g.ldb, g.n, g.a, g.k, g.alpha, g.beta, g.c, 1);
    return;
  }
  // c[i][0] = a[i] . op(b)[:, 0]: b's column 0, ldb apart unless transposed (then its row 0).
  const float* x = g.b;
  thread_local std::vector<float> gathered;
  if (!g.tb && g.ldb != 1) {
    gathered.resize(static_cast<size_t>(g.k));
    for (int64_t i = 0; i < g.k; ++i) gathered[static_cast<size_t>(i)] = g.b[i * g.ldb];
    x = gathered.data();
  }
  dotAllRows(g.a, g.lda, g.m, x, g.k, g.alpha, g.beta, g.c, g.ldc);
}

}  // namespace dfc::runtime::kernels
