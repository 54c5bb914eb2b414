// Fused attention on compiled zoo models: which optimization levels run their
// attention as FlashAttention kernels (runtime/AttentionFusion.h), and that a
// fused step computes what the op-by-op step does.
#include <catch2/catch.hpp>
#include <map>
#include <random>

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

}  // namespace

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
