// The prepared executor on real training steps: the same numbers bit for bit
// run after run; with a fixed split width (dfc run --deterministic) bit for
// bit whatever the pool's size too (no kernel splits a sum across threads,
// and the GEMMs are cut into the same pieces). Cut for the pool (the
// default), a GEMM's pieces may take other kernels of the library (oneDNN on
// AVX2 does), so pool sizes agree within rounding. Both hold on the OpenBLAS
// comparison path too, within rounding of oneDNN.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include "AllocationCounter.h"
#include "FixedFeeds.h"
#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "pef/Pef.h"
#include "runtime/ArenaPlan.h"
#include "runtime/Executor.h"
#include "runtime/kernels/Sgemm.h"

using namespace dfc;

namespace {

pef::Pef compileToPef(const std::string& model, int64_t batch, const std::map<std::string, int64_t>& params,
                      const test::ScratchDir& dir, partition::OptLevel level = partition::OptLevel::O3) {
  driver::CompileOptions c;
  c.model = model;
  c.level = level;
  c.outputFolder = dir / (model + "-" + std::string(partition::optLevelName(level)));
  c.dbPath = "-";
  c.batchSize = batch;
  c.modelParams = params;
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  auto pef = pef::readPef(compiled->pefPath);
  if (!pef) FAIL(pef.error().message());
  return std::move(*pef);
}

// The outputs and the parameters after `steps` training steps.
struct State {
  std::vector<std::string> names;
  std::vector<ir::Tensor> tensors;
};

State trainSteps(const pef::Pef& pef, runtime::ExecutorOptions options, int steps) {
  auto exec = runtime::Executor::create(pef.graph, pef.plan, options);
  if (!exec) FAIL(exec.error().message());
  REQUIRE(exec->threads() == options.threads);
  for (const auto& [id, t] : test::fixedFeeds(pef)) REQUIRE(exec->setInput(id, t).ok());
  for (int s = 0; s < steps; ++s) {
    Status st = exec->step(false);
    if (!st) FAIL(st.error().message());
  }
  State state;
  auto keep = [&](ir::ValueId id) {
    state.names.push_back(pef.graph.value(id).name);
    state.tensors.push_back(exec->tensor(id).clone());
  };
  for (ir::ValueId id : pef.graph.outputs) keep(id);
  for (ir::ValueId id : pef.graph.params()) keep(id);
  return state;
}

// The first tensor whose bytes differ, or "" when all are equal.
std::string firstDifference(const State& a, const State& b) {
  for (size_t i = 0; i < a.tensors.size(); ++i)
    if (std::memcmp(a.tensors[i].bytes(), b.tensors[i].bytes(), a.tensors[i].byteSize()) != 0) return a.names[i];
  return "";
}

// Largest |a - b| / max(1, |b|) over every element of every tensor.
double maxRelDiff(const State& a, const State& b) {
  double worst = 0;
  for (size_t i = 0; i < a.tensors.size(); ++i)
    for (int64_t k = 0; k < a.tensors[i].numElements(); ++k) {
      const double x = a.tensors[i].data<float>()[k], y = b.tensors[i].data<float>()[k];
      worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
    }
  return worst;
}

runtime::ExecutorOptions fixedWidth(int threads) {
  runtime::ExecutorOptions o;
  o.threads = threads;
  o.splitWidth = runtime::kDeterministicSplitWidth;
  return o;
}

void checkDeterministic(const pef::Pef& pef) {
  const State one = trainSteps(pef, {1}, 2);
  REQUIRE(one.tensors.size() > pef.graph.outputs.size());
  CHECK(firstDifference(one, trainSteps(pef, {1}, 2)) == "");  // a fresh executor, run again
  const State two = trainSteps(pef, {2}, 2);
  CHECK(firstDifference(two, trainSteps(pef, {2}, 2)) == "");
  // Cut for the pool: other GEMM pieces, the same numbers within rounding.
  CHECK(maxRelDiff(two, one) < 1e-4);
  CHECK(maxRelDiff(trainSteps(pef, {3}, 2), one) < 1e-4);
  // A fixed split width: the pool's size never changes a bit, GEMMs included.
  for (auto lib : {runtime::kernels::GemmLibrary::Auto, runtime::kernels::GemmLibrary::OneDnn,
                   runtime::kernels::GemmLibrary::OpenBlas}) {
    INFO(runtime::kernels::gemmLibraryName(lib));
    runtime::kernels::setGemmLibrary(lib);
    const State fixed1 = trainSteps(pef, fixedWidth(1), 2);
    CHECK(firstDifference(fixed1, trainSteps(pef, fixedWidth(2), 2)) == "");
    CHECK(firstDifference(fixed1, trainSteps(pef, fixedWidth(3), 2)) == "");  // uneven chunks
    CHECK(maxRelDiff(fixed1, one) < 1e-4);  // OpenBLAS within rounding of oneDNN
  }
  runtime::kernels::setGemmLibrary(runtime::kernels::GemmLibrary::Auto);

  // Forward-only steps leave the state alone: running one twice gives the same outputs.
  auto exec = runtime::Executor::create(pef.graph, pef.plan, {2});
  REQUIRE(exec.ok());
  for (const auto& [id, t] : test::fixedFeeds(pef)) REQUIRE(exec->setInput(id, t).ok());
  const ir::ValueId logits = pef.graph.findValue(pef.meta.logitsOutput);
  REQUIRE(exec->step(true).ok());
  const ir::Tensor first = exec->tensor(logits).clone();
  REQUIRE(exec->step(true).ok());
  CHECK(std::memcmp(first.bytes(), exec->tensor(logits).bytes(), first.byteSize()) == 0);
}

}  // namespace

TEST_CASE("lenet training steps: identical run twice, and for any pool size at a fixed split width", "[executor][threads]") {
  test::ScratchDir dir("threads-lenet");
  checkDeterministic(compileToPef("lenet", 64, {}, dir));
}

TEST_CASE("gpt2-mini training steps: identical run twice, and for any pool size at a fixed split width", "[executor][threads]") {
  test::ScratchDir dir("threads-gpt2");
  // Wide enough that its elementwise, softmax and layer-norm loops split over the pool.
  checkDeterministic(compileToPef("gpt2-mini", 16, {{"hidden_size", 128}, {"seq_len", 64}}, dir));
}

// Fused sections (runtime/SectionFusion.h) against the same steps op by op: the
// chains are bitwise the same loops; a bias epilogue adds the GEMM's sum onto
// the bias (bitwise the same while the GEMM sums K in one block, within rounding
// past that), so training agrees within rounding.
TEST_CASE("fused -o3 sections train like op-by-op execution on lenet and gpt2-mini", "[executor][fusion]") {
  test::ScratchDir dir("fusion-models");
  struct Model {
    std::string name;
    int64_t batch;
    std::map<std::string, int64_t> params;
  };
  for (const Model& m : {Model{"lenet", 32, {}}, Model{"gpt2-mini", 8, {{"hidden_size", 64}, {"seq_len", 32}}}}) {
    INFO(m.name);
    const pef::Pef pef = compileToPef(m.name, m.batch, m.params, dir);
    runtime::ExecutorOptions fused{1}, plain{1};
    plain.fuse = false;
    auto exec = runtime::Executor::create(pef.graph, pef.plan, fused);
    REQUIRE(exec.ok());
    CHECK(exec->fusionStats().biasEpilogues > 0);  // conv/linear + bias in one section at -o3
    if (m.name == "gpt2-mini") {  // both layers' attention, forward and backward, as FlashAttention kernels
      CHECK(exec->fusionStats().attentionForward == 2);
      CHECK(exec->fusionStats().attentionBackward == 2);
    }
    const State a = trainSteps(pef, fused, 3), b = trainSteps(pef, plain, 3);
    CHECK(maxRelDiff(a, b) < 1e-4);
  }
}

// DESIGN §10: the arena holds every intermediate, so a steady-state step (after
// the first, which grows the kernels' scratch once) allocates nothing.
TEST_CASE("steady-state training steps make no heap allocation", "[executor][memory]") {
  test::ScratchDir dir("alloc-models");
  for (const std::string model : {"lenet", "gpt2-mini"}) {
    INFO(model);
    const pef::Pef pef = compileToPef(model, 8, {}, dir);
    auto exec = runtime::Executor::create(pef.graph, pef.plan, {2});
    REQUIRE(exec.ok());
    for (const auto& [id, t] : test::fixedFeeds(pef)) REQUIRE(exec->setInput(id, t).ok());
    REQUIRE(exec->step(false).ok());
    const uint64_t before = test::allocationCount();
    bool ok = true;
    for (int s = 0; s < 3; ++s) ok = exec->step(false).ok() && ok;
    const uint64_t allocations = test::allocationCount() - before;
    REQUIRE(ok);
    CHECK(allocations == 0);
  }
}

// The host memory dfc compile and dfc inspect report is what the runtime then allocates.
TEST_CASE("the host memory estimate matches the runtime's arena, fused and op by op", "[executor][memory]") {
  test::ScratchDir dir("host-memory");
  const pef::Pef pef = compileToPef("gpt2-mini", 8, {}, dir);
  for (bool fuse : {true, false}) {
    auto estimate = runtime::estimateHostMemory(pef.graph, pef.plan, fuse);
    REQUIRE(estimate.ok());
    runtime::ExecutorOptions options{1};
    options.fuse = fuse;
    auto exec = runtime::Executor::create(pef.graph, pef.plan, options);
    REQUIRE(exec.ok());
    CHECK(estimate->arenaBytes == exec->arenaBytes());
    CHECK(estimate->arenaBytes > 0);
    size_t params = 0;
    for (ir::ValueId p : pef.graph.params()) params += pef.graph.value(p).type.byteSize();
    CHECK(estimate->persistentBytes > params);  // params, their momentum, inputs
  }
}

// ResNet-18 at 32x32 runs its 3x3 stride-1 convolutions as Winograd under
// --conv-algo auto (64@8 and 128@4: F(4x4); 256@2: F(2x2); 512@1 and the
// strided and 1x1 ones: GEMM), forward and input gradient: its
// training matches the GEMM run within float rounding, matches itself at -o0,
// -o1 and -o3 as the lenet test does, and its steady-state steps allocate nothing.
TEST_CASE("resnet18 trains alike with winograd and gemm convolutions at o0 o1 and o3", "[executor][winograd]") {
  test::ScratchDir dir("winograd-resnet");
  const std::map<std::string, int64_t> small{{"image_size", 32}, {"num_classes", 10}};
  runtime::ExecutorOptions winograd{1}, gemm{1};
  gemm.convAlgo = runtime::ConvAlgoRequest::Gemm;
  std::vector<State> levels;
  for (auto level : {partition::OptLevel::O0, partition::OptLevel::O1, partition::OptLevel::O3}) {
    INFO(partition::optLevelName(level));
    const pef::Pef pef = compileToPef("resnet18", 4, small, dir, level);
    levels.push_back(trainSteps(pef, winograd, 2));
    // One step (forward, both gradients, the update) agrees within 1.5e-4 here; every further step
    // multiplies the difference by about 30 (batch_norm over 4 samples of layer4's 1x1 maps).
    CHECK(maxRelDiff(trainSteps(pef, winograd, 1), trainSteps(pef, gemm, 1)) < 1e-3);
    if (level != partition::OptLevel::O3) continue;
    auto exec = runtime::Executor::create(pef.graph, pef.plan, {2});
    REQUIRE(exec.ok());
    for (const auto& [id, t] : test::fixedFeeds(pef)) REQUIRE(exec->setInput(id, t).ok());
    REQUIRE(exec->step(false).ok());
    const uint64_t before = test::allocationCount();
    const bool ok = exec->step(false).ok();
    CHECK(test::allocationCount() - before == 0);
    REQUIRE(ok);
  }
  // -o1 runs the same kernels in the same order; -o3's fused sections round differently (4e-5 after 2 steps).
  CHECK(maxRelDiff(levels[0], levels[1]) == 0);
  CHECK(maxRelDiff(levels[0], levels[2]) < 1e-4);
}
