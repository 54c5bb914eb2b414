#include "runtime/kernels/MaxPoolPlanes.h"

#include <algorithm>
#include <limits>

#include "runtime/kernels/Epilogue.h"  // DFC_VECTOR_CLONES

namespace dfc::runtime::kernels {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
constexpr int64_t kTileFloats = 2048;  // output floats (with the junk columns) a tile spans: stays in L1

// The phase planes' geometry: sh * sw planes of `rows` rows of `pitch`, each with a row of slack.
struct Phases {
  int64_t rows = 0, pitch = 0, plane = 0;
};

Phases phasesOf(const Window& g) {
  Phases p;
  p.rows = g.oh + (g.kh - 1) / g.sh;
  p.pitch = g.ow + (g.kw - 1) / g.sw;
  p.plane = p.rows * p.pitch + p.pitch;  // a tap's run over the last row reads up to (kw - 1) / sw past it
  return p;
}

// dst[r * dstPitch + q] = src[r * srcPitch + q * stride], r < rows, q < count: rows of a phase
// plane in one call (a call a row cost more than the copy on small planes). True when one is a NaN.
DFC_VECTOR_CLONES bool gatherRows(float* __restrict dst, int64_t dstPitch, const float* __restrict src,
                                  int64_t srcPitch, int64_t rows, int64_t count, int64_t stride) {
  int nan = 0;
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict d = dst + r * dstPitch;
    const float* __restrict x = src + r * srcPitch;
    if (stride == 1)
      for (int64_t q = 0; q < count; ++q) nan |= (d[q] = x[q]) != x[q];
    else if (stride == 2)
      for (int64_t q = 0; q < count; ++q) nan |= (d[q] = x[2 * q]) != x[2 * q];
    else
      for (int64_t q = 0; q < count; ++q) nan |= (d[q] = x[q * stride]) != x[q * stride];
  }
  return nan != 0;
}

// The first i (0..count) with i * stride + shift >= 0.
int64_t firstInside(int64_t shift, int64_t stride, int64_t count) {
  return shift >= 0 ? 0 : std::min(count, (-shift + stride - 1) / stride);
}

// Phase plane (a, b): P[r][q] = plane[r * sh + a - ph][q * sw + b - pw] inside the plane (the
// rest, -inf, is the same for every plane: maxPoolPrepare writes it). True when a NaN was copied.
bool fillPhase(const float* plane, const Window& g, const Phases& ph, int64_t a, int64_t b, float* out) {
  const int64_t shift = b - g.pw, rowShift = a - g.ph;  // column q, row r read q * sw + shift, r * sh + rowShift
  const int64_t lo = firstInside(shift, g.sw, ph.pitch);
  const int64_t hi = std::max(lo, std::min(ph.pitch, g.w - shift > 0 ? (g.w - shift + g.sw - 1) / g.sw : 0));
  const int64_t r0 = firstInside(rowShift, g.sh, ph.rows);
  const int64_t r1 = std::max(r0, std::min(ph.rows, g.h - rowShift > 0 ? (g.h - rowShift + g.sh - 1) / g.sh : 0));
  if (lo >= hi || r0 >= r1) return false;
  return gatherRows(out + r0 * ph.pitch + lo, ph.pitch, plane + (r0 * g.sh + rowShift) * g.w + lo * g.sw + shift,
                    g.sh * g.w, r1 - r0, hi - lo, g.sw);
}

// acc[t] = first ? p[t] : (p[t] > acc[t] ? p[t] : acc[t]), t < n.
DFC_VECTOR_CLONES void takeCell(float* __restrict acc, const float* __restrict p, int64_t n, bool first) {
  if (first)
    for (int64_t t = 0; t < n; ++t) acc[t] = p[t];
  else
    for (int64_t t = 0; t < n; ++t) acc[t] = p[t] > acc[t] ? p[t] : acc[t];
}

}  // namespace

int64_t maxPoolPlaneScratch(const Window& g) {
  const Phases ph = phasesOf(g);
  return g.sh * g.sw * ph.plane + std::max(kTileFloats, ph.pitch);
}

void maxPoolPrepare(const Window& g, float* scratch) {
  const Phases ph = phasesOf(g);
  std::fill(scratch, scratch + g.sh * g.sw * ph.plane, kMinusInf);
}

bool maxPoolPlane(const float* plane, const Window& g, float* y, float* scratch) {
  const Phases ph = phasesOf(g);
  bool nan = false;
  for (int64_t a = 0; a < g.sh; ++a)
    for (int64_t b = 0; b < g.sw; ++b) nan |= fillPhase(plane, g, ph, a, b, scratch + (a * g.sw + b) * ph.plane);
  if (nan) return false;
  float* acc = scratch + g.sh * g.sw * ph.plane;
  const int64_t rowsPerTile = std::max<int64_t>(1, kTileFloats / ph.pitch);
  for (int64_t oy0 = 0; oy0 < g.oh; oy0 += rowsPerTile) {
    const int64_t rows = std::min(rowsPerTile, g.oh - oy0), n = rows * ph.pitch;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* p = scratch + ((i % g.sh) * g.sw + j % g.sw) * ph.plane;
        takeCell(acc, p + (oy0 + i / g.sh) * ph.pitch + j / g.sw, n, i == 0 && j == 0);
      }
    for (int64_t r = 0; r < rows; ++r) std::copy(acc + r * ph.pitch, acc + r * ph.pitch + g.ow, y + (oy0 + r) * g.ow);
  }
  return true;
}

}  // namespace dfc::runtime::kernels
