#include "WinogradOneDnn.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "runtime/ConvAlgo.h"
#include "runtime/kernels/OneDnnConv.h"
#include "support/ThreadPool.h"

namespace dfc::bench {
namespace {

using runtime::kernels::ConvGeometry;
using runtime::kernels::OneDnnConv;

struct Shape {
  int64_t n, c, o, side, pad;
};

ConvGeometry geometryOf(const Shape& s, bool winograd) {
  const int64_t out = s.side + 2 * s.pad - 2;
  return {s.n, s.c, s.side, s.side, s.o, 3, 3, 1, 1, 1, 1, s.pad, s.pad, s.pad, s.pad, out, out, 1, winograd};
}

// One 3x3 stride-1 conv on oneDNN, direct or Winograd, with its buffers.
struct OneConv {
  ConvGeometry g;
  OneDnnConv conv;
  std::vector<float> workspace, y;
  int threads;
  OneConv(const Shape& s, bool winograd, int threadCount)
      : g(geometryOf(s, winograd)), conv(g, {}), threads(threadCount) {
    const Expected<int64_t> floats = conv.workspaceFloats(threads);
    if (!floats) die(floats.error().message());
    workspace.assign(static_cast<size_t>(*floats), 0.0f);
    y.assign(static_cast<size_t>(g.n * g.o * g.oh * g.ow), 0.0f);
  }
  double runMs(support::ThreadPool& pool, const ir::Tensor& x, const ir::Tensor& w) {
    const auto t0 = Clock::now();
    if (Status st =
            conv.run(pool, threads, x.data<float>(), w.data<float>(), nullptr, y.data(), workspace.data(), true);
        !st)
      die(st.error().message());
    return msSince(t0);
  }
};

void layerRow(const char* name, const Shape& s, int threads, int repeats, std::mt19937& rng) {
  support::ThreadPool pool(threads);
  const ir::Tensor x = uniformTensor({s.n, s.c, s.side, s.side}, -1, 1, rng);
  const ir::Tensor w = uniformTensor({s.o, s.c, 3, 3}, -0.1f, 0.1f, rng);
  OneConv direct(s, false, threads), wino(s, true, threads);
  direct.runMs(pool, x, w), wino.runMs(pool, x, w);  // warm: weights reordered once
  std::vector<double> d, v;
  for (int r = 0; r < repeats; ++r) d.push_back(direct.runMs(pool, x, w)), v.push_back(wino.runMs(pool, x, w));
  const Spread sd = spreadOf(d), sv = spreadOf(v);
  runtime::ConvShape shape{runtime::ConvPassKind::Forward,
                           s.n,
                           s.c,
                           s.side,
                           s.side,
                           s.o,
                           3,
                           3,
                           1,
                           1,
                           s.pad,
                           s.pad,
                           direct.g.oh,
                           direct.g.ow};
  shape.stableWeights = true;
  std::printf("  %-16s b%-2lld %8.3f [%7.3f-%7.3f]  %8.3f [%7.3f-%7.3f] %5.2fx  %-24s auto: %s\n", name,
              static_cast<long long>(s.n), sd.median, sd.min, sd.max, sv.median, sv.min, sv.max, sd.median / sv.median,
              wino.conv.implementation().c_str(),
              std::string(runtime::convAlgoName(chooseConvAlgo(shape, runtime::ConvAlgoRequest::Auto))).c_str());
}

}  // namespace

void oneDnnWinogradLayers(int threads, int repeats) {
  if (!runtime::kernels::oneDnnWinogradAvailable()) {
    std::printf("\noneDNN has no Winograd convolution on this CPU\n");
    return;
  }
  std::printf(
      "\noneDNN's Winograd against its direct conv, %d thread(s), ms per call: median [min-max] of %d "
      "interleaved repeats, speed-up, its kernel, and what auto picks (stable weights)\n  %-19s %-29s  %-35s\n",
      threads, repeats, "layer", "onednn direct", "onednn winograd");
  std::mt19937 rng(3);
  const std::pair<const char*, Shape> rows[] = {
      {"64@56", {1, 64, 64, 56, 1}},    {"128@28", {1, 128, 128, 28, 1}}, {"256@14", {1, 256, 256, 14, 1}},
      {"512@7", {1, 512, 512, 7, 1}},   {"64@56", {8, 64, 64, 56, 1}},    {"128@28", {8, 128, 128, 28, 1}},
      {"256@14", {8, 256, 256, 14, 1}}, {"512@7", {8, 512, 512, 7, 1}},   {"3>16@112", {1, 3, 16, 112, 1}},
      {"8@56", {1, 8, 8, 56, 1}},       {"15@56", {1, 15, 15, 56, 1}},    {"16@56", {1, 16, 16, 56, 1}},
      {"256@4", {1, 256, 256, 4, 1}},   {"512@2", {1, 512, 512, 2, 1}},   {"64@58 pad 0", {1, 64, 64, 58, 0}}};
  for (const auto& [name, shape] : rows) layerRow(name, shape, threads, repeats, rng);
}

namespace {

// max |y - double sums| / max |double sums| over the first image of s (x in [-1, 1], w in [-1, 1]/sqrt(9C)).
double errorOf(const Shape& s, const OneConv& conv, const ir::Tensor& x, const ir::Tensor& w) {
  const float *xs = x.data<float>(), *ws = w.data<float>();
  const int64_t side = s.side, c = s.c, out = conv.g.oh;
  double err = 0, scale = 0;
  for (int64_t o = 0; o < s.o; ++o)
    for (int64_t i = 0; i < out; ++i)
      for (int64_t j = 0; j < out; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < c; ++k)
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t b = 0; b < 3; ++b) {
              const int64_t ii = i + a - s.pad, jj = j + b - s.pad;
              if (ii >= 0 && jj >= 0 && ii < side && jj < side)
                sum += double(xs[(k * side + ii) * side + jj]) * ws[((o * c + k) * 3 + a) * 3 + b];
            }
        err = std::max(err, std::fabs(sum - conv.y[static_cast<size_t>((o * out + i) * out + j)]));
        scale = std::max(scale, std::fabs(sum));
      }
  return err / scale;
}

}  // namespace

// Shapes where oneDNN picks F(2x2) and F(4x4) (by its own heuristics), up to 2048 input channels.
void oneDnnWinogradError() {
  if (!runtime::kernels::oneDnnWinogradAvailable()) return;
  std::printf(
      "\noneDNN's Winograd error against double sums (first image; x in [-1, 1], w in [-1, 1]/sqrt(9C)): max "
      "abs error / max |y|, and its kernel\n");
  support::ThreadPool pool(1);
  const Shape shapes[] = {{1, 16, 16, 14, 1},  {1, 64, 64, 28, 1},   {1, 128, 128, 28, 1},
                          {3, 512, 512, 7, 1}, {3, 1024, 512, 7, 1}, {3, 2048, 512, 7, 1}};
  for (const Shape& s : shapes) {
    std::mt19937 rng(static_cast<unsigned>(s.c));
    const ir::Tensor x = uniformTensor({s.n, s.c, s.side, s.side}, -1, 1, rng);
    const float bound = 1.0f / std::sqrt(9.0f * static_cast<float>(s.c));
    const ir::Tensor w = uniformTensor({s.o, s.c, 3, 3}, -bound, bound, rng);
    OneConv wino(s, true, 1);
    wino.runMs(pool, x, w);
    std::printf("  %5lld -> %-4lld on %2lld x %-2lld b%lld  %9.2e  %s\n", static_cast<long long>(s.c),
                static_cast<long long>(s.o), static_cast<long long>(s.side), static_cast<long long>(s.side),
                static_cast<long long>(s.n), errorOf(s, wino, x, w), wino.conv.implementation().c_str());
  }
}

}  // namespace dfc::bench
