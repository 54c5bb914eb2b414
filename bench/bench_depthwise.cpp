// The depthwise kernel as auto runs it (kernels/Depthwise.h) against oneDNN's
// convolution primitive, the lane kernel and the row kernel (3x3 only) on the
// depthwise convolutions of MobileNetV2 (3x3), EfficientNet-B0 (3x3 and 5x5)
// and MobileNetV3, batch 1, bias and relu6 on the tile. Each call reads one
// input, warm where it fits (as the conv before it just wrote it); with
// --cold the inputs rotate through 64 MB, out of the caches. Prints per layer
// and kernel the median [min - max] ms of interleaved repeats.
//
//   bench_depthwise [--threads N] [--repeats N] [--cold]
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "runtime/kernels/Depthwise.h"
#include "runtime/kernels/DepthwiseLanes.h"
#include "runtime/kernels/DepthwiseRows.h"
#include "runtime/kernels/OneDnnConv.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::bench;
using namespace dfc::runtime::kernels;

namespace {

struct Layer {
  const char* name;
  int64_t c, side, k, stride;
};

constexpr Layer kLayers[] = {
    {"mbv2 32@112 s1", 32, 112, 3, 1},    {"mbv2 96@112 s2", 96, 112, 3, 2},  {"mbv2 144@56 s1", 144, 56, 3, 1},
    {"mbv2 144@56 s2", 144, 56, 3, 2},    {"mbv2 192@28 s1", 192, 28, 3, 1},  {"mbv2 384@14 s1", 384, 14, 3, 1},
    {"mbv2 576@14 s2", 576, 14, 3, 2},    {"mbv2 960@7 s1", 960, 7, 3, 1},    {"effb0 240@28 k5", 240, 28, 5, 1},
    {"effb0 144@56 k5s2", 144, 56, 5, 2}, {"effb0 672@14 k5", 672, 14, 5, 1}, {"effb0 1152@7 k5", 1152, 7, 5, 1},
    {"mbv3 16@112 s1", 16, 112, 3, 1},    {"mbv3 72@56 s1", 72, 56, 3, 1},
};

ConvGeometry geometryOf(const Layer& l) {
  ConvGeometry g;
  g.n = 1, g.c = l.c, g.h = l.side, g.w = l.side, g.o = l.c, g.kh = l.k, g.kw = l.k, g.group = l.c;
  g.sh = g.sw = l.stride;
  g.padTop = g.padLeft = g.padBottom = g.padRight = l.k / 2;
  g.oh = (l.side + 2 * (l.k / 2) - l.k) / l.stride + 1;
  g.ow = g.oh;
  return g;
}

int parsePositive(int argc, char** argv, const std::string& flag, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == flag) return std::max(1, std::stoi(argv[i + 1]));
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = parsePositive(argc, argv, "--threads", 1), repeats = parsePositive(argc, argv, "--repeats", 21);
  bool cold = false;
  for (int i = 1; i < argc; ++i) cold = cold || std::string(argv[i]) == "--cold";
  support::ThreadPool pool(threads);
  const ConvEpilogue relu6{true, ConvActivation::Clip, 0.0f, 6.0f, false};
  std::printf("depthwise convolutions, batch 1, bias + relu6, %d thread(s), %d interleaved repeats, %s\n", threads,
              repeats, loadAverage().c_str());
  std::printf("  %-18s %-25s %-25s %-25s %s\n", "layer", "auto (depthwise.h) ms", "oneDNN ms", "lanes ms", "rows ms");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (const Layer& l : kLayers) {
    const ConvGeometry g = geometryOf(l);
    const int64_t inFloats = g.c * g.h * g.w, outFloats = g.o * g.oh * g.ow;
    // --cold: inputs rotate through 64 MB, out of the caches; else one input,
    // warm where it fits (as the conv before it just wrote it).
    const int64_t copies = cold ? std::max<int64_t>(2, (64 << 20) / 4 / inFloats) : 1;
    std::vector<float> x(static_cast<size_t>(inFloats * copies)), w(static_cast<size_t>(g.o * g.kh * g.kw)),
        bias(static_cast<size_t>(g.o)), y(static_cast<size_t>(outFloats));
    for (std::vector<float>* v : {&x, &w, &bias})
      for (float& f : *v) f = uniform(rng);
    OneDnnConv oneDnn(g, relu6);
    auto workspace = oneDnn.workspaceFloats(threads);
    if (!workspace) die(workspace.error().message());
    std::vector<float> scratch(static_cast<size_t>(*workspace) + 16);
    // The kernels side by side, each call on its own input buffer of the rotation.
    using Runner = std::function<Status(const float*)>;
    const std::pair<const char*, Runner> kernels[] = {
        {"auto", [&](const float* in) { return runDepthwise(pool, g, relu6, in, w.data(), bias.data(), y.data()); }},
        {"oneDNN",
         [&](const float* in) {
           return oneDnn.run(pool, threads, in, w.data(), bias.data(), y.data(), scratch.data(), true);
         }},
        {"lanes",
         [&](const float* in) { return runLaneDepthwise(pool, g, relu6, in, w.data(), bias.data(), y.data()); }},
        {"rows",
         [&](const float* in) {
           if (!rowDepthwiseAvailable(g)) return Status{};
           return runRowDepthwise(pool, g, relu6, in, w.data(), bias.data(), y.data());
         }},
    };
    std::vector<std::vector<double>> times(std::size(kernels));
    for (int r = 0; r < repeats + 1; ++r)
      for (size_t k = 0; k < std::size(kernels); ++k) {
        const float* in = x.data() + ((r + static_cast<int64_t>(k) * copies / 4) % copies) * inFloats;
        const auto t0 = Clock::now();
        if (Status st = kernels[k].second(in); !st) die(st.error().message());
        if (r > 0) times[k].push_back(msSince(t0));  // the first call makes oneDNN's primitive
      }
    std::printf("  %-18s", l.name);
    for (const auto& t : times) {
      const Spread s = spreadOf(t);
      std::printf(" %7.3f [%6.3f - %6.3f]", s.median, s.min, s.max);
    }
    std::printf("%s\n", rowDepthwiseAvailable(g) ? "" : "  (rows: not taken)");
  }
  return 0;
}
