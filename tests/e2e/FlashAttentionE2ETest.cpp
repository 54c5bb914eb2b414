// Fused attention on compiled zoo models: which optimization levels run their
// attention as FlashAttention kernels (runtime/AttentionFusion.h), and that a
// fused step computes what the op-by-op step does, with the layout ops around
// GPT-2's attention absorbed (runtime/AttentionLayouts.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>

#include "FixedFeeds.h"
#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "pef/Pef.h"
#include "runtime/Executor.h"

using namespace dfc;

namespace {

struct Level {
  partition::OptLevel level;
  std::string ruleList;
  bool inference = false;
};

pef::Pef compileGpt2Mini(const Level& l, const test::ScratchDir& dir) {
  driver::CompileOptions c;
  c.model = "gpt2-mini";
  c.pefName = std::string(partition::optLevelName(l.level)) + l.ruleList + (l.inference ? "inf" : "");
  c.outputFolder = dir / c.pefName;
  c.dbPath = "-";
  c.batchSize = 4;
  c.modelParams = {{"seq_len", 24}};
  c.level = l.level;
  c.o1RuleList = l.ruleList;
  c.inference = l.inference;
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  auto pef = pef::readPef(compiled->pefPath);
  if (!pef) FAIL(pef.error().message());
  return std::move(*pef);
}

runtime::FusionStats statsOf(const pef::Pef& pef, bool fuse) {
  runtime::ExecutorOptions o{1};
  o.fuse = fuse;
  auto exec = runtime::Executor::create(pef.graph, pef.plan, o);
  if (!exec) FAIL(exec.error().message());
  return exec->fusionStats();
}

// The graph outputs, then each parameter's change over one training step.
std::vector<ir::Tensor> oneStep(const pef::Pef& pef, bool fuse) {
  runtime::ExecutorOptions o{1};
  o.fuse = fuse;
  auto exec = runtime::Executor::create(pef.graph, pef.plan, o);
  if (!exec) FAIL(exec.error().message());
  for (const auto& [id, t] : test::fixedFeeds(pef, 11)) REQUIRE(exec->setInput(id, t).ok());
  std::vector<ir::Tensor> before;
  for (ir::ValueId id : pef.graph.params()) before.push_back(exec->tensor(id).clone());
  REQUIRE(exec->step(false).ok());
  std::vector<ir::Tensor> out;
  for (ir::ValueId id : pef.graph.outputs) out.push_back(exec->tensor(id).clone());
  for (size_t i = 0; i < before.size(); ++i) {
    ir::Tensor change = exec->tensor(pef.graph.params()[i]).clone();
    for (int64_t e = 0; e < change.numElements(); ++e) change.data<float>()[e] -= before[i].data<float>()[e];
    out.push_back(std::move(change));
  }
  return out;
}

// Largest |a - b| over the largest |b| (at least 1e-6): a parameter change's error against its size.
double relativeToLargest(const ir::Tensor& a, const ir::Tensor& b) {
  double worst = 0, largest = 1e-6;
  for (int64_t i = 0; i < b.numElements(); ++i) {
    worst = std::max(worst, static_cast<double>(std::abs(a.data<float>()[i] - b.data<float>()[i])));
    largest = std::max(largest, static_cast<double>(std::abs(b.data<float>()[i])));
  }
  return worst / largest;
}

}  // namespace

TEST_CASE("gpt2-mini at -o3 absorbs the qkv split, heads-last output and their gradients into fused attention",
          "[attention][fusion]") {
  test::ScratchDir dir("flash-layouts");
  using partition::OptLevel;
  // per layer: forward transpose, 3 slices, 3 reshapes, output transpose; backward dY transpose,
  // 3 reshapes, 3 slice_grads, 2 adds, transpose back (gpt2-mini has 2 layers)
  CHECK(statsOf(compileGpt2Mini({OptLevel::O3, "", true}, dir), true).attentionLayoutOps == 2 * 8);
  const pef::Pef pef = compileGpt2Mini({OptLevel::O3, ""}, dir);
  CHECK(statsOf(pef, true).attentionLayoutOps == 2 * (8 + 10));
  CHECK(statsOf(pef, false).attentionLayoutOps == 0);
  const std::vector<ir::Tensor> fused = oneStep(pef, true), plain = oneStep(pef, false);
  REQUIRE(fused.size() == plain.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    INFO("output or parameter change " << i);
    CHECK(relativeToLargest(fused[i], plain[i]) < 1e-3);
  }
}

TEST_CASE("gpt2-mini attention runs fused at -o1 (gpt2 and nlp rule lists) and -o3, never at -o0", "[attention][fusion]") {
  test::ScratchDir dir("flash-levels");
  struct Expect {
    Level level;
    int forward, backward;
  };
  using partition::OptLevel;
  for (const Expect& e : {Expect{{OptLevel::O0, ""}, 0, 0}, Expect{{OptLevel::O1, "gpt2"}, 2, 2},
                          Expect{{OptLevel::O1, "nlp"}, 2, 2}, Expect{{OptLevel::O3, ""}, 2, 2},
                          Expect{{OptLevel::O3, "", true}, 2, 0}}) {
    INFO(partition::optLevelName(e.level.level) << " " << e.level.ruleList << (e.level.inference ? " inference" : ""));
    const pef::Pef pef = compileGpt2Mini(e.level, dir);
    const runtime::FusionStats fused = statsOf(pef, true);
    CHECK(fused.attentionForward == e.forward);
    CHECK(fused.attentionBackward == e.backward);
    CHECK(statsOf(pef, false).attentionForward == 0);  // ExecutorOptions::fuse off: op by op
  }
}
