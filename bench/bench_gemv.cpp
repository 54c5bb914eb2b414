// Matrix-vector products as the networks run them at batch 1: oneDNN's
// sgemm (--gemm onednn) against the runtime's own loop (kernels/Gemv.h, what
// --gemm auto runs on AVX-512): MobileNet's and EfficientNet's classifiers
// (1280 -> 1000, one output row, b transposed), MobileNetV3's first classifier
// layer (960 -> 1280) and squeeze-excite 1x1 convs (one output column). Warm:
// one matrix, in the caches after the first call; cold: the matrices rotate
// through 256 MB, as in a network where the activations between two calls
// push the weights out. Prints the median [min - max] us of interleaved
// repeats and oneDNN / ours.
//
//   bench_gemv [--repeats N]
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "runtime/kernels/Gemv.h"

using namespace dfc;
using namespace dfc::bench;
using namespace dfc::runtime::kernels;

namespace {

struct Shape {
  const char* name;
  bool row;  // one output row (m = 1, b^T) or one output column (n = 1)
  int64_t outputs, k;
};

constexpr Shape kShapes[] = {
    {"classifier 1280>1000", true, 1000, 1280},
    {"mbv3 fc 960>1280", true, 1280, 960},
    {"SE 240>960 (column)", false, 960, 240},
    {"SE 960>240 (column)", false, 240, 960},
};

GemmCall callOf(const Shape& s, const float* matrix, const float* x, float* y) {
  if (s.row) return {false, true, 1, s.outputs, s.k, 1.0f, x, s.k, matrix, s.k, 0.0f, y, s.outputs};
  return {false, false, s.outputs, 1, s.k, 1.0f, matrix, s.k, x, 1, 0.0f, y, 1};
}

double usOf(const GemmCall& call, bool ours) {
  const auto t0 = Clock::now();
  if (ours)
    gemv(call);
  else if (Status st = sgemmOnThisThread(call); !st)
    die(st.error().message());
  return msSince(t0) * 1000.0;
}

void runShape(const Shape& s, bool cold, int repeats) {
  const int64_t floats = s.outputs * s.k;
  const int64_t copies = cold ? std::max<int64_t>(2, (int64_t{256} << 20) / 4 / floats) : 1;
  std::vector<float> matrices(static_cast<size_t>(floats * copies)), x(static_cast<size_t>(s.k)),
      y(static_cast<size_t>(s.outputs));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::vector<float>* v : {&matrices, &x})
    for (float& f : *v) f = u(rng);
  std::vector<double> library, ours, ratios;
  for (int r = 0; r < repeats + 1; ++r) {
    const float* m0 = matrices.data() + (2 * r % copies) * floats;
    const float* m1 = matrices.data() + ((2 * r + 1) % copies) * floats;
    setGemmLibrary(GemmLibrary::OneDnn);
    const double a = usOf(callOf(s, m0, x.data(), y.data()), false);
    setGemmLibrary(GemmLibrary::Auto);
    const double b = usOf(callOf(s, m1, x.data(), y.data()), true);
    if (r > 0) library.push_back(a), ours.push_back(b), ratios.push_back(a / b);
  }
  const Spread a = spreadOf(library), b = spreadOf(ours), q = spreadOf(ratios);
  std::printf("  %-22s %-5s %8.1f [%7.1f - %7.1f]   %8.1f [%7.1f - %7.1f]   x%.2f\n", s.name, cold ? "cold" : "warm",
              a.median, a.min, a.max, b.median, b.min, b.max, q.median);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 51;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--repeats") repeats = std::max(1, std::stoi(argv[i + 1]));
  if (!gemvShape(callOf(kShapes[0], nullptr, nullptr, nullptr))) {
    std::printf("bench_gemv: this CPU has no AVX-512, so --gemm auto runs matrix-vector products on the library\n");
    return 0;
  }
  std::printf("matrix-vector products, one thread, %d interleaved repeats, %s\n", repeats, loadAverage().c_str());
  std::printf("  %-22s %-5s %-28s %-28s %s\n", "product", "", "oneDNN sgemm us", "gemv us", "oneDNN/gemv");
  for (const Shape& s : kShapes)
    for (bool cold : {false, true}) runShape(s, cold, repeats);
  return 0;
}
