#include "runtime/kernels/Depthwise.h"

#include <algorithm>
#include <vector>

#include "runtime/kernels/DepthwiseLanes.h"
#include "runtime/kernels/DepthwiseRows.h"
#include "runtime/kernels/FastUnary.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/Strided.h"

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

// Phase plane (a, b) of channel x [h, w]: P[r][q] = x[r*sh + a - padTop][q*sw + b - padLeft]
// where that is inside the image. The rest of the plane (the padding) is the
// same for every channel: zeroed once per thread and call, never written here.
void fillPhase(const ConvGeometry& g, const Phases& ph, const float* x, int64_t a, int64_t b, float* out) {
  const int64_t shift = b - g.padLeft;  // column q reads image column q * sw + shift
  const int64_t lo = firstAtLeast(-shift, g.sw, ph.pitch);
  const int64_t hi = std::max(lo, firstAtLeast(g.w - shift, g.sw, ph.pitch));
  const int64_t rowShift = a - g.padTop;  // row r reads image row r * sh + rowShift
  const int64_t r0 = firstAtLeast(-rowShift, g.sh, ph.rows);
  const int64_t r1 = std::max(r0, firstAtLeast(g.h - rowShift, g.sh, ph.rows));
  for (int64_t r = r0; r < r1; ++r) {
    const float* src = x + (r * g.sh + rowShift) * g.w + shift;
    float* dst = out + r * ph.pitch;
    if (g.sw == 1)
      std::copy(src + lo, src + hi, dst + lo);
    else
      gatherStrided(dst + lo, src + lo * g.sw, hi - lo, g.sw);
  }
}

// The start of each kernel row's column phases at one output row: rows[2 * i + b]
// is phase plane (row phase of tap row i, column phase b), from the row tap i reads.
struct TapRows {
  const float* rows[10] = {};
};

// out[t] = bias + the 3x3 taps, t < n, in one pass (stride 1 or 2 across,
// dilation 1): tap (i, j) reads rows[2 * i + j % sw] at t + j / sw.
DFC_VECTOR_CLONES void taps3x3(float* __restrict out, const TapRows& r, const float* w, int64_t n, int64_t sw,
                               float bias) {
  float k[9];
  for (int i = 0; i < 9; ++i) k[i] = w[i];
  const float* __restrict a = r.rows[0], * __restrict b = r.rows[2], * __restrict c = r.rows[4];
  if (sw == 1) {
    for (int64_t t = 0; t < n; ++t)
      out[t] = bias + k[0] * a[t] + k[1] * a[t + 1] + k[2] * a[t + 2] + k[3] * b[t] + k[4] * b[t + 1] +
               k[5] * b[t + 2] + k[6] * c[t] + k[7] * c[t + 1] + k[8] * c[t + 2];
    return;
  }
  const float* __restrict ao = r.rows[1], * __restrict bo = r.rows[3], * __restrict co = r.rows[5];
  for (int64_t t = 0; t < n; ++t)
    out[t] = bias + k[0] * a[t] + k[1] * ao[t] + k[2] * a[t + 1] + k[3] * b[t] + k[4] * bo[t] + k[5] * b[t + 1] +
             k[6] * c[t] + k[7] * co[t] + k[8] * c[t + 1];
}

// One 5-wide kernel row added to out[t], t < n (stride 1 or 2 across, dilation 1).
DFC_VECTOR_CLONES void addRow5(float* __restrict out, const float* __restrict e, const float* __restrict o,
                               const float* w, int64_t n, int64_t sw) {
  const float k0 = w[0], k1 = w[1], k2 = w[2], k3 = w[3], k4 = w[4];
  if (sw == 1)
    for (int64_t t = 0; t < n; ++t) out[t] += k0 * e[t] + k1 * e[t + 1] + k2 * e[t + 2] + k3 * e[t + 3] + k4 * e[t + 4];
  else
    for (int64_t t = 0; t < n; ++t) out[t] += k0 * e[t] + k1 * o[t] + k2 * e[t + 1] + k3 * o[t + 1] + k4 * e[t + 2];
}

// out[t] = bias + the 5x5 taps, t < n: the rows one pass each (25 streams do not fit the registers).
void taps5x5(float* out, const TapRows& r, const float* w, int64_t n, int64_t sw, float bias) {
  std::fill(out, out + n, bias);
  for (int i = 0; i < 5; ++i) addRow5(out, r.rows[2 * i], r.rows[2 * i + 1], w + 5 * i, n, sw);
}

// acc[t] = (first ? bias : acc[t]) + wj * p[t], t < n: any other kernel, one tap a pass.
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
  // SiLU and hard-swish over whole tiles: a row's worth is too short to overlap.
  if (act == ConvActivation::Silu || act == ConvActivation::HardSwish)
    applyActivation(ConvEpilogue{false, act, lo, hi, false}, y, rows * ow);
}

// The kernels with a one-pass tap loop: 3x3 and 5x5, stride at most 2 across, not dilated across.
bool fusedTaps(const ConvGeometry& g) {
  return ((g.kh == 3 && g.kw == 3) || (g.kh == 5 && g.kw == 5)) && g.sw <= 2 && g.dw == 1;
}

// Where a tap reads in the phase planes: row i's row phase and column phase b, from output row oy.
const float* tapStart(const ConvGeometry& g, const Phases& ph, const float* phases, int64_t oy, int64_t i, int64_t j) {
  const int64_t a = i * g.dh % g.sh, r = i * g.dh / g.sh, b = j * g.dw % g.sw, q = j * g.dw / g.sw;
  return phases + (a * g.sw + b) * ph.plane + (oy + r) * ph.pitch + q;
}

// out[t] = bias + every tap, t < n, from output row oy on (runs past a row end read the next row's columns).
void sumTaps(const ConvGeometry& g, const Phases& ph, const float* phases, const float* w, float bias, int64_t oy,
             int64_t n, float* out) {
  if (fusedTaps(g)) {
    TapRows r;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t b = 0; b < g.sw; ++b) r.rows[2 * i + b] = tapStart(g, ph, phases, oy, i, b);
    (g.kh == 3 ? taps3x3 : taps5x5)(out, r, w, n, g.sw, bias);
    return;
  }
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      oneTap(out, tapStart(g, ph, phases, oy, i, j), w[i * g.kw + j], n, i == 0 && j == 0, bias);
}

// Output rows at least this wide are summed straight into y, a row at a time.
constexpr int64_t kDirectRowWidth = 32;

// Output plane y [oh, ow] of one channel from its input's phase planes and its kh x kw weights.
void outputPlane(const ConvGeometry& g, const ConvEpilogue& e, const Phases& ph, const float* phases, const float* w,
                 float bias, float* y, float* acc) {
  if (g.ow >= kDirectRowWidth) {
    // relu and clip a row at a time while it is in L1; SiLU and hard-swish
    // over the whole plane, as storeRows (a row is too short to overlap SiLU's chain).
    const bool rowwise = e.activation != ConvActivation::Silu && e.activation != ConvActivation::HardSwish;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      sumTaps(g, ph, phases, w, bias, oy, g.ow, y + oy * g.ow);
      if (rowwise) applyActivation(e, y + oy * g.ow, g.ow);
    }
    if (!rowwise) applyActivation(e, y, g.oh * g.ow);
    return;
  }
  // Narrow planes: whole tiles of rows at once, the Q - ow columns past each row computed and dropped.
  const int64_t rowsPerTile = std::max<int64_t>(1, kTileFloats / ph.pitch);
  for (int64_t oy0 = 0; oy0 < g.oh; oy0 += rowsPerTile) {
    const int64_t rows = std::min(rowsPerTile, g.oh - oy0);
    sumTaps(g, ph, phases, w, bias, oy0, rows * ph.pitch, acc);
    storeRows(y + oy0 * g.ow, acc, rows, ph.pitch, g.ow, e.activation, e.lo, e.hi);
  }
}

// Per-thread buffers, grown on the first call and kept: the phase planes and the tile's sums.
float* threadBuffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  return lineAligned(buffer, floats);
}

// bench_depthwise, one thread, the NCHW loops against 16 channels in the lanes
// (DepthwiseLanes.h). On Intel (Sapphire Rapids) the lanes win on narrow
// planes (3x3 on 14x14 0.044 ms against 0.067, on 7x7 0.035 against 0.107),
// at stride 2 (96@112: 0.415 against 0.480) and on 5x5 kernels (240@28: 0.230
// against 0.235); the NCHW loops on wide stride-1 3x3 planes (32@112: 0.232
// against 0.335, 192@28: 0.084 against 0.111), where the lanes' two
// transposes cost more than the rows' ends. On AMD (Zen 4, whose AVX-512
// runs as two 256-bit halves and pays for the NCHW loops' unaligned row
// loads) the lanes win there too, in the network (per-node profile, one
// thread: MobileNetV2's 144@56 0.22 against 0.30-0.34 ms, 192@28 0.08-0.09
// against 0.10-0.14; MobileNetV3's 72@56 0.12 against 0.15), as long as a
// block's padded input and output planes fit half the L2: on 112x112 planes
// (1.6 MB a block) they lose (MobileNetV2's 32@112 0.31 against 0.27,
// MobileNetV3's 16@112 0.19 against 0.14), though bench_depthwise, calling
// one layer over and over, has them ahead. And not with fewer blocks of 16
// channels than threads (72@56 on 2 threads: 5 blocks; 16@x on 2: one idle).
constexpr int64_t kLaneBlockBytes = int64_t{512} << 10;

bool wideStrideOne3x3(const ConvGeometry& g) { return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.ow >= 28; }

// A block of 16 channels' padded input and output planes, as the lane kernel holds it.
int64_t laneBlockBytes(const ConvGeometry& g) {
  const int64_t padded = (g.h + g.padTop + g.padBottom) * (g.w + g.padLeft + g.padRight);
  return 16 * (padded + g.oh * g.ow) * int64_t{sizeof(float)};
}

enum class Loops { Nchw, Lanes, Rows };

// On AMD, a 3x3 at least 56 outputs wide (28 at stride 2) goes to the row kernel
// (DepthwiseRows.h), which reads each input row once from where it lies, two
// output rows at a time: bench_depthwise on Zen 4, one thread, rows against
// lanes (and the NCHW loops): 32@112 s1 0.115 against 0.167 (0.233) ms,
// 16@112 s1 0.056 against 0.085 (0.106), 96@112 s2 0.198 against 0.233,
// 144@56 s1 0.156 against 0.167, 72@56 s1 0.078 against 0.091. On narrower
// outputs the lanes win (192@28 s1 0.056 against 0.084; 960@7 0.025 against
// 0.063: the row kernel pays per row), but at stride 2 not in a network: there
// 144@56 s2 (28 wide) reads its input from L2 or further, where the lanes'
// transposes cost more (per-node, MobileNetV2: 103 -> 92 us at one thread,
// 59-67 -> 48-49 at two; alone and warm the lanes win, 0.074 against 0.083).
Loops loopsFor(const ConvGeometry& g, int threads) {
  static const bool amd = __builtin_cpu_is("amd");
  const bool blockFits = laneBlockBytes(g) <= kLaneBlockBytes;
  if (amd && g.ow >= (g.sw == 2 ? 28 : 56) && rowDepthwiseAvailable(g)) return Loops::Rows;
  if (!laneDepthwiseAvailable(g)) return Loops::Nchw;
  if (!wideStrideOne3x3(g)) return Loops::Lanes;
  return amd && blockFits && g.n * ((g.c + 15) / 16) >= threads ? Loops::Lanes : Loops::Nchw;
}

}  // namespace

bool depthwiseShape(const ConvGeometry& g) { return g.group == g.c && g.c > 0 && g.o % g.c == 0; }

Status runDepthwise(support::ThreadPool& pool, const ConvGeometry& g, const ConvEpilogue& e, const float* x,
                    const float* w, const float* bias, float* y) {
  if (!depthwiseShape(g)) return internalError("depthwise kernel given a convolution that is not depthwise");
  const Loops loops = loopsFor(g, pool.threads());
  if (loops == Loops::Rows) return runRowDepthwise(pool, g, e, x, w, bias, y);
  if (loops == Loops::Lanes) return runLaneDepthwise(pool, g, e, x, w, bias, y);
  const Phases ph = phasesOf(g);
  const int64_t multiplier = g.o / g.c, phaseFloats = g.sh * g.sw * ph.plane;
  const int64_t tileFloats = std::max(kTileFloats, ph.pitch) + 16;
  // One task per input channel of an image: its phase planes, then its `multiplier` output planes.
  return pool.parallelFor(0, g.n * g.c, grainOf(g.oh * g.ow * g.kh * g.kw * multiplier), [&](int64_t lo, int64_t hi) {
    float* phases = threadBuffer(phaseFloats + tileFloats);
    float* acc = phases + phaseFloats;
    std::fill(phases, phases + phaseFloats, 0.0f);  // the padding; fillPhase writes the image's part
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
