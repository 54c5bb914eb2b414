// The runtime's thread pool, 1 thread against 2: a large elementwise kernel
// (16M floats: add, then relu, as prepared kernel objects) and a lenet
// training step (batch 64, -o3, through the executor; its GEMMs split over
// the same pool). Each figure is the fastest of several runs, the two
// thread counts interleaved so both see the same machine load. The first line
// is the ceiling: how much two plain threads spinning on registers gain on
// this machine right now (a shared or loaded machine gives far less than 2).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "BenchSupport.h"
#include "driver/compile/Compiler.h"
#include "pef/Pef.h"
#include "runtime/Executor.h"
#include "runtime/Kernels.h"

using namespace dfc;
using bench::Clock;
using bench::die;
using bench::msSince;
using bench::spin;

namespace {

// y = relu(a + b) over n floats (memory-bound), and gelu(a) (compute-bound: tanh per element).
struct Elementwise {
  explicit Elementwise(int64_t n) {
    const ir::TensorType type{ir::DType::F32, {n}};
    a = ir::Tensor(type), b = ir::Tensor(type), sum = ir::Tensor(type), y = ir::Tensor(type);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : a.span<float>()) v = dist(rng);
    for (float& v : b.span<float>()) v = dist(rng);
    add.op = ir::OpKind::Add, add.name = "add";
    relu.op = ir::OpKind::Relu, relu.name = "relu";
    gelu.op = ir::OpKind::Gelu, gelu.name = "gelu";
    const ir::Tensor* addIn[] = {&a, &b};
    ir::Tensor* addOut[] = {&sum};
    const ir::Tensor* reluIn[] = {&sum};
    ir::Tensor* reluOut[] = {&y};
    auto k1 = runtime::prepareKernel(add, addIn, addOut);
    auto k2 = runtime::prepareKernel(relu, reluIn, reluOut);
    const ir::Tensor* geluIn[] = {&a};
    auto k3 = runtime::prepareKernel(gelu, geluIn, reluOut);
    if (!k1 || !k2 || !k3) die("cannot prepare the elementwise kernels");
    addKernel = std::move(*k1);
    reluKernel = std::move(*k2);
    geluKernel = std::move(*k3);
  }
  double run(runtime::ExecContext& ctx) {
    auto t0 = Clock::now();
    if (!addKernel->run(ctx) || !reluKernel->run(ctx)) die("elementwise kernel failed");
    return msSince(t0);
  }
  double runGelu(runtime::ExecContext& ctx) {
    auto t0 = Clock::now();
    if (!geluKernel->run(ctx)) die("gelu kernel failed");
    return msSince(t0);
  }
  ir::Tensor a, b, sum, y;
  ir::Node add, relu, gelu;
  runtime::KernelPtr addKernel, reluKernel, geluKernel;
};

pef::Pef compileLenet() {
  driver::CompileOptions o;
  o.model = "lenet";
  o.batchSize = 64;
  return bench::compileToPef(o);
}

void report(const char* what, double one, double two) {
  std::printf("%-44s 1 thread %9.2f ms   2 threads %9.2f ms   speedup x%.2f\n", what, one, two, one / two);
}

}  // namespace

int main() {
  spdlog::set_level(spdlog::level::warn);
  const int64_t n = int64_t{1} << 24;
  std::printf("machine: %d hardware threads\n", support::ThreadPool::defaultThreads());
  const double spin1 = spin(1), spin2 = spin(2);
  std::printf("%-44s 1 job     %9.2f ms   2 jobs    %9.2f ms   parallel gain x%.2f (ideal 2)\n",
              "ceiling: plain threads on a register loop", spin1, spin2, 2 * spin1 / spin2);

  Elementwise ew(n);
  support::ThreadPool pool1(1), pool2(2);
  runtime::ExecContext ctx1(pool1), ctx2(pool2);
  double best1 = 1e30, best2 = 1e30;
  ew.run(ctx1), ew.run(ctx2);  // warm: pages touched, workers started
  for (int rep = 0; rep < 40; ++rep) {
    best1 = std::min(best1, ew.run(ctx1));
    best2 = std::min(best2, ew.run(ctx2));
  }
  report("relu(a + b), 16M floats (add, relu kernels)", best1, best2);
  const double gbps = 5.0 * static_cast<double>(n) * sizeof(float) / 1e9;  // add reads 2 and writes 1, relu 1 and 1
  std::printf("%-44s 1 thread %9.2f GB/s  2 threads %9.2f GB/s\n", "  memory traffic", gbps / (best1 / 1e3),
              gbps / (best2 / 1e3));
  best1 = best2 = 1e30;
  for (int rep = 0; rep < 10; ++rep) {
    best1 = std::min(best1, ew.runGelu(ctx1));
    best2 = std::min(best2, ew.runGelu(ctx2));
  }
  report("gelu(a), 16M floats (compute-bound)", best1, best2);

  const pef::Pef lenet = compileLenet();
  runtime::ExecutorOptions sleeping{2};
  sleeping.poolSpin = std::chrono::microseconds(0);
  bench::FedExecutor step1(lenet, 1), step2(lenet, 2), step2sleep(lenet, sleeping);
  for (int rep = 0; rep < 3; ++rep) step1.run(), step2.run(), step2sleep.run();  // warm
  best1 = best2 = 1e30;
  double best2sleep = 1e30;
  for (int rep = 0; rep < 40; ++rep) {
    best1 = std::min(best1, step1.run());
    best2 = std::min(best2, step2.run());
    best2sleep = std::min(best2sleep, step2sleep.run());
  }
  report("lenet training step, batch 64, -o3", best1, best2);
  report("  the same, idle threads sleep at once (no spin)", best1, best2sleep);
  return 0;
}
