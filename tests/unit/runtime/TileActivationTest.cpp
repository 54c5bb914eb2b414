// A SiLU or hard-swish on a convolution's output tile (ConvActivation):
// every kernel but oneDNN's gives the bits of the unary op's loop run on the
// convolution's output (the same kernel with no activation), at 1, 2 and 3
// threads, batch 3, on full vectors and masked tails, with the values they
// branch on (a NaN, both infinities, both signs of zero, sums under -87 where
// e^x flushes to 0, and -3 and 3 where hard-swish's clamp turns). oneDNN's
// post-ops round their own: within 1e-5.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/kernels/Depthwise.h"
#include "runtime/kernels/DepthwiseLanes.h"
#include "runtime/kernels/DepthwiseRows.h"
#include "runtime/kernels/FastUnary.h"
#include "runtime/kernels/OneDnnConv.h"
#include "runtime/kernels/Pointwise.h"
#include "runtime/kernels/StemConv.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime::kernels;

namespace {

std::vector<float> uniform(size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The first input values become the special ones (a 1x1 conv with weight 1 passes them through).
void plantSpecials(std::vector<float>& x) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {
      std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.0f, -0.0f, -90.0f, -87.5f, 88.5f, -3.0f, 3.0f};
  std::copy(std::begin(specials), std::end(specials), x.begin());
}

// Bit-for-bit, NaNs equal to NaNs.
int64_t differingBits(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differ += std::isnan(a[i]) ? !std::isnan(b[i]) : std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return differ;
}

struct Activation {
  ConvActivation act;
  const char* fn;
};
const Activation kActivations[] = {{ConvActivation::Silu, "silu"}, {ConvActivation::HardSwish, "hard_swish"}};

// The conv with the activation on the tile, against run(epilogue, y) for the
// plain conv then the unary op's own loop.
template <typename Run>
void expectUnaryBits(size_t outputs, Run&& run) {
  for (const Activation& a : kActivations) {
    INFO(a.fn);
    std::vector<float> fused(outputs), plain(outputs), unary(outputs);
    REQUIRE(run(ConvEpilogue{true, a.act, 0, 0, false}, fused.data()).ok());
    REQUIRE(run(ConvEpilogue{true, ConvActivation::None, 0, 0, false}, plain.data()).ok());
    fastUnaryLoop(a.fn)(plain.data(), unary.data(), static_cast<int64_t>(plain.size()), 0.0, 0.0);
    CHECK(differingBits(fused, unary) == 0);
  }
}

ConvGeometry depthwiseGeometry(int64_t c, int64_t side, int64_t k) {
  ConvGeometry g;
  g.n = 3, g.c = c, g.o = c, g.group = c, g.h = g.w = side, g.kh = g.kw = k;
  g.padTop = g.padLeft = g.padBottom = g.padRight = k / 2;
  g.oh = g.ow = side;
  return g;
}

}  // namespace

TEST_CASE("a SiLU or hard-swish on the depthwise kernels' tile has the unary op's bits", "[kernels][conv][silu]") {
  std::mt19937 rng(61);
  // 17 channels: a one-lane tail block. runDepthwise takes 3x3 planes of 30
  // columns (its tile loop) and 40 (its row loop) itself and hands the rest to
  // the lanes; the row kernel takes the 3x3s (on AMD auto gives it 56 columns and more).
  for (int64_t side : {7, 30, 40, 64})
    for (int64_t k : {3, 5}) {
      const ConvGeometry g = depthwiseGeometry(17, side, k);
      std::vector<float> x = uniform(static_cast<size_t>(g.n * g.c * side * side), rng, -40, 40);
      const auto w = uniform(static_cast<size_t>(g.c * k * k), rng, -1, 1), b = uniform(17, rng, -1, 1);
      for (int threads : {1, 2, 3}) {
        INFO(side << " columns, " << k << "x" << k << ", " << threads << " threads");
        support::ThreadPool pool(threads);
        const auto outputs = static_cast<size_t>(g.n * g.o * g.oh * g.ow);
        expectUnaryBits(outputs, [&](const ConvEpilogue& e, float* y) {
          return runDepthwise(pool, g, e, x.data(), w.data(), b.data(), y);
        });
        if (laneDepthwiseAvailable(g))
          expectUnaryBits(outputs, [&](const ConvEpilogue& e, float* y) {
            return runLaneDepthwise(pool, g, e, x.data(), w.data(), b.data(), y);
          });
        if (rowDepthwiseAvailable(g))
          expectUnaryBits(outputs, [&](const ConvEpilogue& e, float* y) {
            return runRowDepthwise(pool, g, e, x.data(), w.data(), b.data(), y);
          });
      }
    }
}

TEST_CASE("a SiLU or hard-swish in the pointwise and stem kernels' registers has the unary op's bits",
          "[kernels][conv][silu]") {
  if (!pointwiseConvAvailable() || !stemConvAvailable()) {
    WARN("no AVX-512F: the pointwise and stem kernels do not run here");
    return;
  }
  std::mt19937 rng(62);
  // Pointwise 1 -> 9 channels, weight 1 for channel 0: its outputs are the
  // inputs plus bias, so the planted specials reach the SiLU; 150 pixels a
  // plane: three 48-pixel tiles and a 6-pixel masked tail; 148: the last 4
  // pixels by columns (8 channels a vector).
  const PointwiseGeometry pg{3, 1, 9, 150}, pgColumns{3, 1, 9, 148};
  std::vector<float> px = uniform(static_cast<size_t>(pg.n * pg.pixels), rng, -100, 100);
  plantSpecials(px);
  std::vector<float> pw = uniform(9, rng, -2, 2), pb(9, 0.0f);
  pw[0] = 1.0f;
  const StemGeometry sg{3, 3, 23, 21, 20, 1, 1, 12, 11};  // 3x3 stride 2 pad 1
  const auto sx = uniform(static_cast<size_t>(sg.n * sg.c * sg.h * sg.w), rng, -30, 30);
  const auto sw = uniform(static_cast<size_t>(sg.o * sg.c * 9), rng, -1, 1), sb = uniform(20, rng, -1, 1);
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    support::ThreadPool pool(threads);
    for (const PointwiseGeometry& geometry : {pg, pgColumns}) {
      PointwiseConv pointwise(geometry);
      expectUnaryBits(static_cast<size_t>(geometry.n * geometry.o * geometry.pixels),
                      [&](const ConvEpilogue& e, float* y) {
                        return pointwise.run(pool, e, px.data(), pw.data(), pb.data(), nullptr, y, true);
                      });
    }
    std::vector<float> scratch(static_cast<size_t>(stemScratchFloats(sg)));
    expectUnaryBits(static_cast<size_t>(sg.n * sg.o * sg.oh * sg.ow), [&](const ConvEpilogue& e, float* y) {
      return runStemConv(pool, sg, e, sx.data(), sw.data(), sb.data(), nullptr, y, scratch.data());
    });
  }
}

TEST_CASE("oneDNN's swish and hardswish post-ops are a SiLU and a hard-swish within 1e-5", "[kernels][conv][silu]") {
  const auto silu = [](double v) { return v / (1.0 + std::exp(-v)); };
  const auto hardSwish = [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); };
  std::mt19937 rng(63);
  ConvGeometry g;
  g.n = 3, g.c = 8, g.h = g.w = 9, g.o = 16, g.kh = g.kw = 3, g.sh = g.sw = 2;
  g.padTop = g.padLeft = g.padBottom = g.padRight = 1, g.oh = g.ow = 5;
  const auto x = uniform(static_cast<size_t>(g.n * g.c * g.h * g.w), rng, -10, 10);
  const auto w = uniform(static_cast<size_t>(g.o * g.c * 9), rng, -1, 1), b = uniform(16, rng, -1, 1);
  for (int threads : {1, 2, 3}) {
    support::ThreadPool pool(threads);
    const auto outputs = static_cast<size_t>(g.n * g.o * g.oh * g.ow);
    std::vector<float> silus(outputs), hardSwishes(outputs), plain(outputs);
    for (auto [e, y] : {std::pair{ConvActivation::Silu, &silus}, std::pair{ConvActivation::HardSwish, &hardSwishes},
                        std::pair{ConvActivation::None, &plain}}) {
      OneDnnConv conv(g, ConvEpilogue{true, e, 0, 0, false});
      const Expected<int64_t> floats = conv.workspaceFloats(threads);
      REQUIRE(floats.ok());
      std::vector<float> workspace(static_cast<size_t>(*floats));
      REQUIRE(conv.run(pool, threads, x.data(), w.data(), b.data(), y->data(), workspace.data(), true).ok());
    }
    double worstSilu = 0, worstHardSwish = 0;
    for (size_t i = 0; i < outputs; ++i) {
      const double v = plain[i], s = silu(v), h = hardSwish(v);
      worstSilu = std::max(worstSilu, std::abs(silus[i] - s) / std::max(1.0, std::abs(s)));
      worstHardSwish = std::max(worstHardSwish, std::abs(hardSwishes[i] - h) / std::max(1.0, std::abs(h)));
    }
    INFO(threads << " threads: worst " << worstSilu << " and " << worstHardSwish);
    CHECK(worstSilu < 1e-5);
    CHECK(worstHardSwish < 1e-5);
  }
}
