#include "runtime/kernels/Pointwise.h"

#include <immintrin.h>

#include <algorithm>

#include "runtime/kernels/Avx512Activation.h"

namespace dfc::runtime::kernels {
namespace {

constexpr int64_t kRows = 8;     // output channels a tile (a weight panel's width)
constexpr int64_t kLanes = 16;   // pixels a vector
constexpr int64_t kVectors = 3;  // vectors a tile: 8 x 3 accumulators
constexpr int64_t kTile = kLanes * kVectors;
// Floats of input a pixel chunk spans at most: its rows stay in L2 while every panel passes.
constexpr int64_t kChunkFloats = int64_t{1} << 16;
// At most this many pixels past the last whole vector run across the panel (columns()).
constexpr int64_t kMaxColumns = 4;

struct Operands {
  const float *x, *packed, *bias, *skip;
  float* y;
  const ConvEpilogue* act;
};

// Output channels [8 panel, + 8) of image b at pixels [p0, p0 + V * 16), the
// last vector's lanes cut by `last` (the input read masked too: never past its end).
template <int V>
__attribute__((target("avx512f"))) void tile(const PointwiseGeometry& g, const Operands& a, int64_t b, int64_t panel,
                                             int64_t p0, __mmask16 last) {
  __m512 acc[kRows][V];
  const float* bias = a.bias ? a.bias + panel * kRows : nullptr;
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const __m512 start = bias && panel * kRows + r < g.o ? _mm512_set1_ps(bias[r]) : _mm512_setzero_ps();
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) acc[r][v] = start;
  }
  // Locals, and the epilogue's loops unrolled: else acc lives in memory.
  const int64_t channels = g.c, stride = g.pixels;
  const float* x = a.x + b * channels * stride + p0;
  const float* w = a.packed + panel * channels * kRows;
  for (int64_t k = 0; k < channels; ++k, x += stride, w += kRows) {
    __m512 in[V];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v)
      in[v] = v + 1 < V ? _mm512_loadu_ps(x + v * kLanes) : _mm512_maskz_loadu_ps(last, x + v * kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512 weight = _mm512_set1_ps(w[r]);
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(weight, in[v], acc[r][v]);
    }
  }
  const int64_t rows = std::min(kRows, g.o - panel * kRows);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    const int64_t at = (b * g.o + panel * kRows + r) * stride + p0;
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) {
      const __mmask16 mask = v + 1 < V ? __mmask16(0xFFFF) : last;
      __m512 out = acc[r][v];
      if (a.skip) out = _mm512_add_ps(out, _mm512_maskz_loadu_ps(mask, a.skip + at + v * kLanes));
      _mm512_mask_storeu_ps(a.y + at + v * kLanes, mask, activate512(*a.act, out));
    }
  }
}

// Up to kMaxColumns pixels [p0, p0 + count) of image b, the panel's 8 output
// channels in one 8-float vector a pixel (a 7 x 7 plane's 49th pixel would
// take a whole 16-lane vector a row): the same sum order as tile().
__attribute__((target("avx512f,fma"))) void columns(const PointwiseGeometry& g, const Operands& a, int64_t b,
                                                    int64_t panel, int64_t p0, int64_t count) {
  const int64_t channels = g.c, stride = g.pixels, rows = std::min(kRows, g.o - panel * kRows);
  alignas(32) float bias[kRows] = {};
  for (int64_t r = 0; a.bias && r < rows; ++r) bias[r] = a.bias[panel * kRows + r];
  // Input channel k adds into phase k % 4: four chains a column, else one
  // column waits on the multiply-add latency every channel.
  __m256 acc[kMaxColumns][4];
  for (int j = 0; j < kMaxColumns; ++j)
    acc[j][0] = _mm256_load_ps(bias), acc[j][1] = acc[j][2] = acc[j][3] = _mm256_setzero_ps();
  const float* x = a.x + b * channels * stride + p0;
  const float* w = a.packed + panel * channels * kRows;
  const int64_t whole = channels / 4 * 4;
  for (int64_t k = 0; k < channels; k += 4, x += 4 * stride, w += 4 * kRows) {
    const int phases = k < whole ? 4 : static_cast<int>(channels - whole);
#pragma GCC unroll 4
    for (int phase = 0; phase < 4; ++phase) {
      if (phase >= phases) break;
      const __m256 weights = _mm256_loadu_ps(w + phase * kRows);
      const float* xk = x + phase * stride;
#pragma GCC unroll 4
      for (int j = 0; j < kMaxColumns; ++j)
        if (j < count) acc[j][phase] = _mm256_fmadd_ps(weights, _mm256_set1_ps(xk[j]), acc[j][phase]);
    }
  }
  alignas(32) float out[kMaxColumns][kRows];
  for (int j = 0; j < kMaxColumns; ++j)
    _mm256_store_ps(out[j], _mm256_add_ps(_mm256_add_ps(acc[j][0], acc[j][1]), _mm256_add_ps(acc[j][2], acc[j][3])));
  // A column's 8 outputs through the activation in one call (one a value cost
  // a call each: MobileNetV2's 7x7 and 14x14 1x1s spent 3% of the step here).
  for (int64_t j = 0; j < count; ++j) {
    const int64_t at = (b * g.o + panel * kRows) * stride + p0 + j;
    if (a.skip)
      for (int64_t r = 0; r < rows; ++r) out[j][r] += a.skip[at + r * stride];
    applyActivation(*a.act, out[j], rows);
    for (int64_t r = 0; r < rows; ++r) a.y[at + r * stride] = out[j][r];
  }
}

// Pixels [p0, p1) of image b for one panel: whole 48-pixel tiles, then the
// rest in 1 to 3 vectors, or, when at most kMaxColumns pixels pass the last
// whole vector, those by columns().
void pixels(const PointwiseGeometry& g, const Operands& a, int64_t b, int64_t panel, int64_t p0, int64_t p1) {
  int64_t p = p0;
  for (; p + kTile <= p1; p += kTile) tile<kVectors>(g, a, b, panel, p, 0xFFFF);
  int64_t rest = p1 - p;
  if (rest <= 0) return;
  if (rest % kLanes != 0 && rest % kLanes <= kMaxColumns) {
    columns(g, a, b, panel, p1 - rest % kLanes, rest % kLanes);
    rest -= rest % kLanes;
    if (rest == 0) return;
  }
  const auto last = static_cast<__mmask16>((1u << ((rest - 1) % kLanes + 1)) - 1);
  const int64_t vectors = (rest + kLanes - 1) / kLanes;
  if (vectors == 1)
    tile<1>(g, a, b, panel, p, last);
  else if (vectors == 2)
    tile<2>(g, a, b, panel, p, last);
  else
    tile<3>(g, a, b, panel, p, last);
}

}  // namespace

bool pointwiseConvAvailable() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

Status PointwiseConv::run(support::ThreadPool& pool, const ConvEpilogue& act, const float* x, const float* w,
                          const float* bias, const float* skip, float* y, bool stableWeights) {
  if (!pointwiseConvAvailable()) return internalError("the pointwise convolution kernel needs AVX-512F");
  const PointwiseGeometry& g = m_g;
  if (g.n <= 0 || g.o <= 0 || g.pixels <= 0) return {};
  const int64_t panels = (g.o + kRows - 1) / kRows;
  if (!(stableWeights && m_packedOnce)) {  // [panel][k][8]
    m_packed.assign(static_cast<size_t>(panels * g.c * kRows), 0.0f);
    for (int64_t o = 0; o < g.o; ++o)
      for (int64_t k = 0; k < g.c; ++k)
        m_packed[static_cast<size_t>(((o / kRows) * g.c + k) * kRows + o % kRows)] = w[o * g.c + k];
    m_packedOnce = true;
  }
  const Operands a{x, m_packed.data(), bias, skip, y, &act};
  // Work items: (image, pixel chunk, panel), panels innermost, so a thread's
  // run of items passes its panels over one chunk of input while it is in L2.
  const int64_t chunk = std::max<int64_t>(1, kChunkFloats / std::max<int64_t>(1, g.c) / kTile) * kTile;
  const int64_t chunks = (g.pixels + chunk - 1) / chunk;
  return pool.parallelFor(0, g.n * chunks * panels, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t panel = i % panels, c = (i / panels) % chunks, b = i / panels / chunks;
      pixels(g, a, b, panel, c * chunk, std::min(g.pixels, (c + 1) * chunk));
    }
  });
}

}  // namespace dfc::runtime::kernels
