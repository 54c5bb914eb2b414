// The three depthwise kernels behind --conv-algo auto's "depthwise": the NCHW
// loops (kernels/Depthwise.h), 16 channels in the lanes of a vector
// (kernels/DepthwiseLanes.h) and 3x3 rows read in place (kernels/DepthwiseRows.h,
// both on CPUs with AVX-512), each against a direct sum in double, on every
// attribute value their loops branch on: 3x3 and 5x5 (the one-pass tap loops)
// and any other kernel, stride 1, 2 and 3, dilation, asymmetric pads, no pads
// and pads of 2, 16 channels (one full block), 17 (a one-lane tail) and 35,
// planes of 1, 7 and 14 columns, 30 and 40 (the NCHW tile and row loops), 33,
// 64 and 112 (the row kernel's full vectors and masked tails), odd and even
// counts of output rows (the row kernel's pairs), a depth multiplier of 2,
// batches of 3 at 1, 2 and 3 threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/kernels/Depthwise.h"
#include "runtime/kernels/DepthwiseLanes.h"
#include "runtime/kernels/DepthwiseRows.h"

using namespace dfc;
using namespace dfc::runtime::kernels;

namespace {

// Sums in another order than the double reference, with fused multiply-adds in the lanes.
constexpr double kTolerance = 1e-5;

ConvGeometry geometry(int64_t c, int64_t multiplier, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t stride,
                      int64_t dilation, std::vector<int64_t> pads) {
  ConvGeometry g;
  g.n = 3, g.c = c, g.h = h, g.w = w, g.o = c * multiplier, g.kh = kh, g.kw = kw, g.group = c;
  g.sh = g.sw = stride, g.dh = g.dw = dilation;
  g.padTop = pads[0], g.padLeft = pads[1], g.padBottom = pads[2], g.padRight = pads[3];
  g.oh = (h + pads[0] + pads[2] - dilation * (kh - 1) - 1) / stride + 1;
  g.ow = (w + pads[1] + pads[3] - dilation * (kw - 1) - 1) / stride + 1;
  return g;
}

// y = act(conv(x, w) + bias) in double, straight from the definition.
std::vector<double> direct(const ConvGeometry& g, const ConvEpilogue& e, const std::vector<float>& x,
                           const std::vector<float>& w, const std::vector<float>& bias) {
  std::vector<double> y(static_cast<size_t>(g.n * g.o * g.oh * g.ow));
  const int64_t multiplier = g.o / g.c;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t o = 0; o < g.o; ++o)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          double s = e.bias ? bias[static_cast<size_t>(o)] : 0.0;
          for (int64_t i = 0; i < g.kh; ++i)
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t iy = oy * g.sh + i * g.dh - g.padTop, ix = ox * g.sw + j * g.dw - g.padLeft;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              s += double(w[static_cast<size_t>((o * g.kh + i) * g.kw + j)]) *
                   x[static_cast<size_t>(((n * g.c + o / multiplier) * g.h + iy) * g.w + ix)];
            }
          if (e.activation == ConvActivation::Relu) s = s > 0 ? s : 0;
          if (e.activation == ConvActivation::Clip) s = std::min<double>(std::max<double>(s, e.lo), e.hi);
          y[static_cast<size_t>(((n * g.o + o) * g.oh + oy) * g.ow + ox)] = s;
        }
  return y;
}

using Kernel = Status (*)(support::ThreadPool&, const ConvGeometry&, const ConvEpilogue&, const float*, const float*,
                          const float*, float*);

// `kernel` matches the direct sum at 1, 2 and 3 threads, with no bias, a bias, and bias + clip(-0.5, 0.5).
void checkKernel(Kernel kernel, const ConvGeometry& g, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(-1, 1);
  auto random = [&](int64_t count) {
    std::vector<float> v(static_cast<size_t>(count));
    for (float& f : v) f = uniform(rng);
    return v;
  };
  const std::vector<float> x = random(g.n * g.c * g.h * g.w), w = random(g.o * g.kh * g.kw), bias = random(g.o);
  for (const ConvEpilogue& e :
       {ConvEpilogue{false, ConvActivation::None, 0, 0, false}, ConvEpilogue{true, ConvActivation::None, 0, 0, false},
        ConvEpilogue{true, ConvActivation::Clip, -0.5f, 0.5f, false}}) {
    const std::vector<double> want = direct(g, e, x, w, bias);
    double scale = 1e-30;
    for (double v : want) scale = std::max(scale, std::abs(v));
    for (int threads : {1, 2, 3}) {
      INFO("bias " << e.bias << " clip " << (e.activation == ConvActivation::Clip) << " threads " << threads);
      support::ThreadPool pool(threads);
      std::vector<float> y(want.size(), std::numeric_limits<float>::quiet_NaN());
      REQUIRE(kernel(pool, g, e, x.data(), w.data(), e.bias ? bias.data() : nullptr, y.data()).ok());
      double err = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        const double diff = std::abs(y[i] - want[i]);
        err = std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(err, diff);  // unwritten: NaN
      }
      CHECK(err / scale < kTolerance);
    }
  }
}

// The shapes, with what each one exercises.
struct Case {
  const char* what;
  ConvGeometry g;
};

std::vector<Case> cases() {
  const std::vector<int64_t> same1{1, 1, 1, 1}, same2{2, 2, 2, 2}, none{0, 0, 0, 0};
  return {
      {"3x3 on 14x14, one full block of 16", geometry(16, 1, 14, 14, 3, 3, 1, 1, same1)},
      {"3x3 on 7x7, 17 channels: a one-lane tail", geometry(17, 1, 7, 7, 3, 3, 1, 1, same1)},
      {"3x3 stride 2, 35 channels, odd plane", geometry(35, 1, 15, 13, 3, 3, 2, 1, same1)},
      {"5x5 on 14x14", geometry(20, 1, 14, 14, 5, 5, 1, 1, same2)},
      {"5x5 stride 2", geometry(18, 1, 17, 16, 5, 5, 2, 1, same2)},
      {"3x3 stride 3, asymmetric pads", geometry(16, 1, 13, 11, 3, 3, 3, 1, {0, 1, 2, 0})},
      {"3x3 dilated 2", geometry(19, 1, 12, 13, 3, 3, 1, 2, same2)},
      {"1x1, a single tap", geometry(16, 1, 6, 5, 1, 1, 1, 1, none)},
      {"3x5, not square", geometry(17, 1, 9, 10, 3, 5, 1, 1, {1, 2, 1, 2})},
      {"a 1x1 output", geometry(16, 1, 3, 3, 3, 3, 1, 1, none)},
      {"3x3 on 30 columns: the NCHW tile loop", geometry(5, 1, 9, 30, 3, 3, 1, 1, same1)},
      {"3x3 on 40 columns: the NCHW row loop", geometry(6, 1, 7, 40, 3, 3, 1, 1, same1)},
      {"5x5 on 36 columns, stride 1", geometry(4, 1, 8, 36, 5, 5, 1, 1, same2)},
      {"3x3 stride 2 on 80 columns", geometry(3, 1, 9, 80, 3, 3, 2, 1, same1)},
      {"depth multiplier 2, 5x5 stride 2", geometry(4, 2, 13, 11, 5, 5, 2, 1, same2)},
      {"depth multiplier 2, 3x3 on 40 columns", geometry(3, 2, 6, 40, 3, 3, 1, 1, same1)},
      {"3x3 on 112 columns: 7 full vectors, 5 output rows", geometry(2, 1, 5, 112, 3, 3, 1, 1, same1)},
      {"3x3 stride 2 on 112 columns: 56 outputs, a masked tail", geometry(3, 1, 8, 112, 3, 3, 2, 1, same1)},
      {"3x3 stride 2, 57 rows of 113 columns: odd both ways", geometry(2, 1, 113, 113, 3, 3, 2, 1, same1)},
      {"3x3 on 33 columns, no padding", geometry(2, 1, 6, 33, 3, 3, 1, 1, none)},
      {"3x3 stride 2 on 37 columns, pads of 2", geometry(2, 1, 7, 37, 3, 3, 2, 1, same2)},
      {"3x3 stride 2 on 56 columns: 28 outputs, a vector and a masked 12", geometry(18, 1, 9, 56, 3, 3, 2, 1, same1)},
      {"3x3 stride 2 on 64 columns, pads only after (TensorFlow's same)",
       geometry(3, 1, 10, 64, 3, 3, 2, 1, {0, 0, 1, 1})},
  };
}

}  // namespace

TEST_CASE("the depthwise kernel matches a direct sum on every shape its loops branch on", "[kernels][conv]") {
  std::mt19937 rng(52);
  for (const Case& c : cases()) {
    INFO(c.what);
    checkKernel(runDepthwise, c.g, rng);
  }
}

TEST_CASE("the lane depthwise kernel matches a direct sum, or refuses where it cannot run", "[kernels][conv]") {
  std::mt19937 rng(53);
  for (const Case& c : cases()) {
    INFO(c.what);
    if (laneDepthwiseAvailable(c.g)) {
      checkKernel(runLaneDepthwise, c.g, rng);
      continue;
    }
    // No AVX-512, or a depth multiplier: an error, not a wrong answer.
    support::ThreadPool pool(1);
    std::vector<float> buffer(4096);
    CHECK_FALSE(runLaneDepthwise(pool, c.g, {}, buffer.data(), buffer.data(), nullptr, buffer.data()).ok());
  }
}

TEST_CASE("the row depthwise kernel matches a direct sum, or refuses where it cannot run", "[kernels][conv]") {
  std::mt19937 rng(54);
  for (const Case& c : cases()) {
    INFO(c.what);
    if (rowDepthwiseAvailable(c.g)) {
      checkKernel(runRowDepthwise, c.g, rng);
      continue;
    }
    // Not a 3x3 of stride 1 or 2 undilated, a depth multiplier, or no AVX-512: an error, not a wrong answer.
    CHECK((c.g.kh != 3 || c.g.kw != 3 || c.g.sh > 2 || c.g.dh != 1 || c.g.o != c.g.c ||
           !__builtin_cpu_supports("avx512f")));
    support::ThreadPool pool(1);
    std::vector<float> buffer(4096);
    CHECK_FALSE(runRowDepthwise(pool, c.g, {}, buffer.data(), buffer.data(), nullptr, buffer.data()).ok());
  }
  // A left padding past the 8 columns a padded row keeps: refused.
  ConvGeometry wide = geometry(2, 1, 4, 4, 3, 3, 1, 1, {1, 9, 1, 9});
  CHECK_FALSE(rowDepthwiseAvailable(wide));
}

TEST_CASE("depthwise relu and clip on the tile: exact values, NaN as the ops treat it", "[kernels][conv]") {
  // 16 channels of a 4x4 plane of ones, 3x3 weights of ones, pad 1, bias -5:
  // the sums are 4 at a corner, 6 on an edge, 9 inside, so before the activation
  // -1, 1 and 4. Channel 3's first pixel is NaN: it spreads to 4 outputs.
  ConvGeometry g = geometry(16, 1, 4, 4, 3, 3, 1, 1, {1, 1, 1, 1});
  g.n = 1;
  std::vector<float> x(16 * 16, 1.0f), w(16 * 9, 1.0f), bias(16, -5.0f);
  x[3 * 16] = std::numeric_limits<float>::quiet_NaN();
  const ConvEpilogue relu{true, ConvActivation::Relu, 0, 0, false}, clip{true, ConvActivation::Clip, 0, 3, false};
  for (Kernel kernel : {runDepthwise, runLaneDepthwise, runRowDepthwise}) {
    if (kernel == runLaneDepthwise && !laneDepthwiseAvailable(g)) continue;
    if (kernel == runRowDepthwise && !rowDepthwiseAvailable(g)) continue;
    support::ThreadPool pool(2);
    std::vector<float> y(16 * 16);
    REQUIRE(kernel(pool, g, relu, x.data(), w.data(), bias.data(), y.data()).ok());
    CHECK(y[0] == 0.0f);       // corner: -1 -> 0
    CHECK(y[1] == 1.0f);       // edge
    CHECK(y[5] == 4.0f);       // inside
    CHECK(y[3 * 16] == 0.0f);  // relu(NaN) = 0, as the relu op computes x > 0 ? x : 0
    REQUIRE(kernel(pool, g, clip, x.data(), w.data(), bias.data(), y.data()).ok());
    CHECK(y[0] == 0.0f);
    CHECK(y[1] == 1.0f);
    CHECK(y[5] == 3.0f);               // 4 clipped to 3
    CHECK(std::isnan(y[3 * 16 + 5]));  // clip keeps NaN
    CHECK(y[3 * 16 + 15] == 0.0f);     // far from the NaN: the corner again
  }
}

TEST_CASE("the lane depthwise kernel re-zeroes its padding after a conv that filled the same buffer",
          "[kernels][conv]") {
  // Each takes the same 16 x 16 buffer a thread: 14x14 with pads of 1; 14x14
  // padded after only, whose image covers the first one's top and left border;
  // 16x16 unpadded, which covers all of it.
  const ConvGeometry padded = geometry(16, 1, 14, 14, 3, 3, 1, 1, {1, 1, 1, 1});
  const ConvGeometry after = geometry(16, 1, 14, 14, 3, 3, 1, 1, {0, 0, 2, 2});
  const ConvGeometry filled = geometry(16, 1, 16, 16, 3, 3, 1, 1, {0, 0, 0, 0});
  if (!laneDepthwiseAvailable(padded)) {
    WARN("no AVX-512F: the lane depthwise kernel does not run here");
    return;
  }
  std::mt19937 rng(54);
  for (const ConvGeometry* g : {&padded, &after, &padded, &filled, &padded, &padded})
    checkKernel(runLaneDepthwise, *g, rng);
}
