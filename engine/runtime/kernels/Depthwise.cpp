#include "runtime/kernels/Depthwise.h"

#include <algorithm>
#include <vector>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

// The phase planes of one input channel: sh * sw planes of R rows of pitch Q.
struct Phases {
  int64_t rows = 0, pitch = 0, plane = 0;  // plane: floats each, R * Q and a row of slack
};

Phases phasesOf(const ConvGeometry& g) {
  Phases p;
  p.rows = g.oh + (g.kh - 1) * g.dh / g.sh;
  p.pitch = g.ow + (g.kw - 1) * g.dw / g.sw;
  // A tap's run over the last output row reads up to (kw - 1) * dw / sw < Q
  // floats past R * Q (only for the dropped columns): a row of zeros.
  p.plane = p.rows * p.pitch + p.pitch;
  return p;
}

// Output floats a tile of whole rows spans at most: the sums stay in L1.
constexpr int64_t kTileFloats = 2048;

// The first q (0..count) with q * stride >= offset.
int64_t firstAtLeast(int64_t offset, int64_t stride, int64_t count) {
  if (offset <= 0) return 0;
  return std::min(count, (offset + stride - 1) / stride);
}

// dst[q] = src[q * stride], q < count; stride 2 (most strided convs) on its own so that it vectorizes.
DFC_VECTOR_CLONES void gatherColumns(float* __restrict dst, const float* __restrict src, int64_t count,
                                     int64_t stride) {
  if (stride == 2)
    for (int64_t q = 0; q < count; ++q) dst[q] = src[2 * q];
  else
    for (int64_t q = 0; q < count; ++q) dst[q] = src[q * stride];
}

// Phase plane (a, b) of channel x [h, w]: P[r][q] = x[r*sh + a - padTop][q*sw + b - padLeft], 0 outside.
void fillPhase(const ConvGeometry& g, const Phases& ph, const float* x, int64_t a, int64_t b, float* out) {
  const int64_t shift = b - g.padLeft;  // column q reads image column q * sw + shift
  const int64_t lo = firstAtLeast(-shift, g.sw, ph.pitch);
  const int64_t hi = std::max(lo, firstAtLeast(g.w - shift, g.sw, ph.pitch));
  for (int64_t r = 0; r < ph.rows; ++r) {
    float* __restrict dst = out + r * ph.pitch;
    const int64_t iy = r * g.sh + a - g.padTop;
    if (iy < 0 || iy >= g.h) {
      std::fill(dst, dst + ph.pitch, 0.0f);
      continue;
    }
    const float* __restrict src = x + iy * g.w + shift;
    std::fill(dst, dst + lo, 0.0f);
    if (g.sw == 1)
      std::copy(src + lo, src + hi, dst + lo);
    else
      gatherColumns(dst + lo, src + lo * g.sw, hi - lo, g.sw);
    std::fill(dst + hi, dst + ph.pitch, 0.0f);
  }
  std::fill(out + ph.rows * ph.pitch, out + ph.plane, 0.0f);
}

// acc[t] = (first ? bias : acc[t]) + w0 * p0[t] + w1 * p1[t] + w2 * p2[t], t < n:
// a 3-wide kernel row in one pass over the tile; the first row starts it from the bias.
DFC_VECTOR_CLONES void threeTaps(float* __restrict acc, const float* __restrict p0, const float* __restrict p1,
                                 const float* __restrict p2, const float* wrow, int64_t n, bool first, float bias) {
  const float w0 = wrow[0], w1 = wrow[1], w2 = wrow[2];
  if (first)
    for (int64_t t = 0; t < n; ++t) acc[t] = bias + w0 * p0[t] + w1 * p1[t] + w2 * p2[t];
  else
    for (int64_t t = 0; t < n; ++t) acc[t] = acc[t] + w0 * p0[t] + w1 * p1[t] + w2 * p2[t];
}

// The same for a 5-wide kernel row (EfficientNet's and MobileNetV3's 5x5 depthwise convs).
DFC_VECTOR_CLONES void fiveTaps(float* __restrict acc, const float* const* p, const float* wrow, int64_t n, bool first,
                                float bias) {
  const float w0 = wrow[0], w1 = wrow[1], w2 = wrow[2], w3 = wrow[3], w4 = wrow[4];
  const float* __restrict p0 = p[0], * __restrict p1 = p[1], * __restrict p2 = p[2], * __restrict p3 = p[3], * __restrict p4 = p[4];
  if (first)
    for (int64_t t = 0; t < n; ++t) acc[t] = bias + w0 * p0[t] + w1 * p1[t] + w2 * p2[t] + w3 * p3[t] + w4 * p4[t];
  else
    for (int64_t t = 0; t < n; ++t) acc[t] = acc[t] + w0 * p0[t] + w1 * p1[t] + w2 * p2[t] + w3 * p3[t] + w4 * p4[t];
}

// acc[t] = (first ? bias : acc[t]) + wj * p[t], t < n.
DFC_VECTOR_CLONES void oneTap(float* __restrict acc, const float* __restrict p, float wj, int64_t n, bool first,
                              float bias) {
  if (first)
    for (int64_t t = 0; t < n; ++t) acc[t] = bias + wj * p[t];
  else
    for (int64_t t = 0; t < n; ++t) acc[t] += wj * p[t];
}

// y[r][x] = act(acc[r * pitch + x]) for the tile's rows, x < ow (the columns past ow dropped).
DFC_VECTOR_CLONES void storeRows(float* __restrict y, const float* __restrict acc, int64_t rows, int64_t pitch,
                                 int64_t ow, ConvActivation act, float lo, float hi) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict src = acc + r * pitch;
    float* __restrict dst = y + r * ow;
    if (act == ConvActivation::Relu)
      for (int64_t x = 0; x < ow; ++x) dst[x] = src[x] > 0 ? src[x] : 0.0f;
    else if (act == ConvActivation::Clip)
      for (int64_t x = 0; x < ow; ++x) {
        const float v = src[x] < lo ? lo : src[x];
        dst[x] = v > hi ? hi : v;
      }
    else
      for (int64_t x = 0; x < ow; ++x) dst[x] = src[x];
  }
}

// Output plane y [oh, ow] of one channel from its input's phase planes and its kh x kw weights.
void outputPlane(const ConvGeometry& g, const ConvEpilogue& e, const Phases& ph, const float* phases, const float* w,
                 float bias, float* y, float* acc) {
  const int64_t rowsPerTile = std::max<int64_t>(1, kTileFloats / ph.pitch);
  for (int64_t oy0 = 0; oy0 < g.oh; oy0 += rowsPerTile) {
    const int64_t rows = std::min(rowsPerTile, g.oh - oy0), n = rows * ph.pitch;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t a = i * g.dh % g.sh, r = i * g.dh / g.sh;
      auto tap = [&](int64_t j) {  // the phase plane tap (i, j) reads, at the tile's first row
        const int64_t b = j * g.dw % g.sw, q = j * g.dw / g.sw;
        return phases + (a * g.sw + b) * ph.plane + (oy0 + r) * ph.pitch + q;
      };
      if (g.kw == 3) {
        threeTaps(acc, tap(0), tap(1), tap(2), w + i * g.kw, n, i == 0, bias);
      } else if (g.kw == 5) {
        const float* taps[5] = {tap(0), tap(1), tap(2), tap(3), tap(4)};
        fiveTaps(acc, taps, w + i * g.kw, n, i == 0, bias);
      } else {
        for (int64_t j = 0; j < g.kw; ++j) oneTap(acc, tap(j), w[i * g.kw + j], n, i == 0 && j == 0, bias);
      }
    }
    storeRows(y + oy0 * g.ow, acc, rows, ph.pitch, g.ow, e.activation, e.lo, e.hi);
  }
}

// Per-thread buffers, grown on the first call and kept: the phase planes and the tile's sums.
std::vector<float>& threadBuffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  if (static_cast<int64_t>(buffer.size()) < floats) buffer.resize(static_cast<size_t>(floats));
  return buffer;
}

}  // namespace

bool depthwiseShape(const ConvGeometry& g) { return g.group == g.c && g.c > 0 && g.o % g.c == 0; }

Status runDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                    const float* w, const float* bias, float* y) {
  if (!depthwiseShape(g)) return internalError("depthwise kernel given a convolution that is not depthwise");
  const Phases ph = phasesOf(g);
  const int64_t multiplier = g.o / g.c, phaseFloats = g.sh * g.sw * ph.plane;
  const int64_t tileFloats = std::max(kTileFloats, ph.pitch) + 16;
  // One task per input channel of an image: its phase planes, then its `multiplier` output planes.
  return pool.parallelFor(0, g.n * g.c, grainOf(g.oh * g.ow * g.kh * g.kw * multiplier), [&](int64_t lo, int64_t hi) {
    float* phases = threadBuffer(phaseFloats + tileFloats).data();
    float* acc = phases + phaseFloats;
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t image = task / g.c, c = task % g.c;
      const float* xc = x + (image * g.c + c) * g.h * g.w;
      for (int64_t a = 0; a < g.sh; ++a)
        for (int64_t b = 0; b < g.sw; ++b) fillPhase(g, ph, xc, a, b, phases + (a * g.sw + b) * ph.plane);
      for (int64_t m = 0; m < multiplier; ++m) {
        const int64_t o = c * multiplier + m;
        outputPlane(g, e, ph, phases, w + o * g.kh * g.kw, bias ? bias[o] : 0.0f, y + (image * g.o + o) * g.oh * g.ow,
                    acc);
      }
    }
  });
}

}  // namespace dfc::runtime::kernels
