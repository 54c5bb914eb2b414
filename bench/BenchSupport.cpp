#include "BenchSupport.h"

#include <immintrin.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "driver/compile/Compiler.h"

namespace dfc::bench {

void die(const std::string& what) {
  std::fprintf(stderr, "bench: %s\n", what.c_str());
  std::exit(1);
}

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

pef::Pef compileToPef(driver::CompileOptions options) {
  static int counter = 0;
  options.dbPath = "-";
  options.outputFolder =
      (std::filesystem::temp_directory_path() / ("dfc-bench-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
          .string();
  auto r = driver::compile(options);
  if (!r) die(options.model + ": " + r.error().message());
  auto pef = pef::readPef(r->pefPath);
  std::filesystem::remove_all(options.outputFolder);
  if (!pef) die(pef.error().message());
  return std::move(*pef);
}

FedExecutor::FedExecutor(const pef::Pef& pef, int threads)
    : FedExecutor(pef, runtime::ExecutorOptions{threads}) {}

FedExecutor::FedExecutor(const pef::Pef& pef, const runtime::ExecutorOptions& options) : forwardOnly(pef.meta.inference) {
  auto e = runtime::Executor::create(pef.graph, pef.plan, options);
  if (!e) die(e.error().message());
  exec = std::make_unique<runtime::Executor>(std::move(*e));
  std::mt19937 rng(3);
  for (ir::ValueId id : pef.graph.inputs) {
    ir::Tensor t(pef.graph.value(id).type);
    if (t.dtype() == ir::DType::I64)
      for (int64_t& v : t.span<int64_t>()) v = static_cast<int64_t>(rng() % 10);
    else if (t.numElements() == 1)
      t.data<float>()[0] = 0.01f;
    else
      for (float& v : t.span<float>()) v = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    if (!exec->setInput(id, t)) die("cannot set input " + pef.graph.value(id).name);
  }
}

double FedExecutor::run(int steps) {
  auto t0 = Clock::now();
  for (int i = 0; i < steps; ++i)
    if (Status st = exec->step(forwardOnly); !st) die(st.error().message());
  return msSince(t0) / steps;
}

ir::Tensor uniformTensor(const ir::Shape& shape, float lo, float hi, std::mt19937& rng) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, shape});
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& v : t.span<float>()) v = d(rng);
  return t;
}

Spread spreadOf(std::vector<double> samples) {
  Spread s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min = samples.front();
  s.max = samples.back();
  s.count = static_cast<int>(n);
  return s;
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (!(in >> a >> b >> c)) return "load unknown";
  char line[64];
  std::snprintf(line, sizeof line, "load %.1f %.1f %.1f", a, b, c);
  return line;
}

double spin(int jobs) {
  auto work = [] {
    volatile double x = 0;
    for (int64_t i = 0; i < 100000000; ++i) x = x + static_cast<double>(i) * 1e-9;
  };
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  return msSince(t0);
}

namespace {

constexpr int64_t kFmaIterations = 2000000;  // ~10 ms: short enough to run between preemptions

// Twelve independent accumulators hide the FMA latency; an FMA is two FLOP
// per lane. One body for both vector widths (each needs its own target).
#define DFC_FMA_LOOP(NAME, TARGET, VEC, LANES, SET1, FMADD, ADD, STORE)                                        \
  __attribute__((target(TARGET))) double NAME() {                                                             \
    VEC a[12];                                                                                                \
    for (VEC& v : a) v = SET1(0.0f);                                                                          \
    const VEC m = SET1(0.999999f), c = SET1(1e-7f);                                                           \
    auto t0 = Clock::now();                                                                                   \
    for (int64_t i = 0; i < kFmaIterations; ++i) {                                                            \
      _Pragma("GCC unroll 12") for (VEC& v : a) v = FMADD(v, m, c);                                           \
    }                                                                                                         \
    const double ms = msSince(t0);                                                                            \
    for (int k = 1; k < 12; ++k) a[0] = ADD(a[0], a[k]);                                                      \
    alignas(64) float out[LANES];                                                                             \
    STORE(out, a[0]);                                                                                         \
    volatile float sink = out[0];                                                                             \
    (void)sink;                                                                                               \
    return static_cast<double>(kFmaIterations) * 12 * LANES * 2 / (ms * 1e6);                                 \
  }

DFC_FMA_LOOP(fma512, "avx512f", __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_store_ps)
DFC_FMA_LOOP(fma256, "avx2,fma", __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_store_ps)
#undef DFC_FMA_LOOP

}  // namespace

double fmaPeakGflops(std::string& isa) {
  double (*loop)() = nullptr;
  if (__builtin_cpu_supports("avx512f")) {
    isa = "avx512f";
    loop = fma512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    isa = "avx2+fma";
    loop = fma256;
  } else {
    isa = "none measured";
    return 0;
  }
  double best = 0;
  for (int rep = 0; rep < 21; ++rep) best = std::max(best, loop());
  return best;
}

}  // namespace dfc::bench
