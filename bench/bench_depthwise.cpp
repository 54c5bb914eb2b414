// The depthwise kernel (kernels/Depthwise.h) against oneDNN's convolution
// primitive on the depthwise convolutions of MobileNetV2 (3x3) and
// EfficientNet-B0 (3x3 and 5x5), batch 1, bias and relu6 on the tile. Each
// call reads an input that is not in L2 (the inputs rotate through buffers
// larger than the caches), as in a network where the expand conv before it
// wrote a plane larger than L2. Prints per layer the median [min - max] ms of
// interleaved repeats, the speed-up over oneDNN, and GB/s of input + output.
//
//   bench_depthwise [--threads N] [--repeats N]
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "runtime/kernels/Depthwise.h"
#include "runtime/kernels/DepthwiseLanes.h"
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
  std::printf("  %-18s %-28s %-28s %-8s %s\n", "layer", "depthwise kernel ms", "oneDNN ms", "lanes ms", "");
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
    std::vector<double> ours, theirs, lanes;
    for (int r = 0; r < repeats + 1; ++r) {
      const float* in = x.data() + (r % copies) * inFloats;
      auto t0 = Clock::now();
      if (Status st = runDepthwise(pool, g, relu6, in, w.data(), bias.data(), y.data()); !st) die(st.error().message());
      const double a = msSince(t0);
      in = x.data() + ((r + copies / 2) % copies) * inFloats;
      t0 = Clock::now();
      if (Status st = oneDnn.run(pool, threads, in, w.data(), bias.data(), y.data(), scratch.data(), true); !st)
        die(st.error().message());
      const double b = msSince(t0);
      in = x.data() + ((r + copies / 3) % copies) * inFloats;
      t0 = Clock::now();
      if (Status st = runLaneDepthwise(pool, g, relu6, in, w.data(), bias.data(), y.data()); !st)
        die(st.error().message());
      const double c = msSince(t0);
      if (r > 0) ours.push_back(a), theirs.push_back(b), lanes.push_back(c);  // the first call makes oneDNN's primitive
    }
    const Spread a = spreadOf(ours), b = spreadOf(theirs), c = spreadOf(lanes);
    std::printf("  %-18s %7.3f [%6.3f - %6.3f]   %7.3f [%6.3f - %6.3f]   %7.3f [%6.3f - %6.3f]\n", l.name, a.median,
                a.min, a.max, b.median, b.min, b.max, c.median, c.min, c.max);
  }
  return 0;
}
