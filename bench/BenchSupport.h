#pragma once
// Shared by the runtime benchmarks: compile a model into a PEF in memory, an
// executor over it fed with fixed random inputs, timing helpers and the
// machine's figures (load, parallel ceiling, FMA peak) printed beside results.
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "driver/compile/CompileOptions.h"
#include "pef/Pef.h"
#include "runtime/Executor.h"

namespace dfc::bench {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what);
double msSince(Clock::time_point t0);

// Compiles `options` into a temporary folder (removed again) and reads the PEF back.
pef::Pef compileToPef(driver::CompileOptions options);

// An executor over a PEF with fixed random inputs: ids and labels in [0, 10),
// scalars (the learning rate) 0.01, images uniform in [0, 1).
struct FedExecutor {
  FedExecutor(const pef::Pef& pef, int threads);
  FedExecutor(const pef::Pef& pef, const runtime::ExecutorOptions& options);
  // `steps` steps (training unless the PEF is an inference PEF); ms per step.
  double run(int steps = 1);
  std::unique_ptr<runtime::Executor> exec;
  bool forwardOnly = false;
};

// An f32 tensor of `shape`, uniform in [lo, hi).
ir::Tensor uniformTensor(const ir::Shape& shape, float lo, float hi, std::mt19937& rng);

struct Spread {
  double median = 0, min = 0, max = 0;
  int count = 0;
};
Spread spreadOf(std::vector<double> samples);

// "load 7.8 6.5 6.1" from /proc/loadavg (1, 5 and 15 minute averages).
std::string loadAverage();
// Milliseconds for `jobs` register-only loops on as many std::threads (the
// machine's parallel ceiling is 2 * spin(1) / spin(2) for two threads).
double spin(int jobs);
// The best of 21 single-thread FMA register loops (~10 ms each), in GFLOP/s, with the
// widest vectors the CPU has; `isa` names them ("avx512f", "avx2+fma", "scalar").
double fmaPeakGflops(std::string& isa);

}  // namespace dfc::bench
