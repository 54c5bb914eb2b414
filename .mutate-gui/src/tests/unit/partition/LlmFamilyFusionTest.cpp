// The llama, bloom and gpt_neox rule lists act on their zoo families: each
// block rule matches once per layer (rotary and repeated key/value heads twice)
// on the 2-layer presets, forward and, for the training lists, backward.
#include <catch2/catch.hpp>

#include <map>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "partition/Decomposer.h"
#include "partition/FusionMatcher.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

frontend::Model tiny(const std::string& name) {
  frontend::ZooOptions zo;
  zo.batchSize = 2;
  zo.params = {{"seq_len", 8}};
  auto m = frontend::buildZooModel(name, zo);
  INFO((m ? "" : m.error().message()));
  REQUIRE(m);
  return std::move(*m);
}

FusionResult fuse(const ir::Graph& g, const std::string& list) {
  auto rules = loadFusionRuleList(list);
  INFO((rules ? "" : rules.error().message()));
  REQUIRE(rules);
  return fuseByRules(g, *rules);
}

using Counts = std::map<std::string, int>;

void checkCounts(FusionResult& r, const Counts& expected) {
  for (const auto& [rule, count] : expected) {
    INFO(rule);
    CHECK(r.matchCounts[rule] == count);
  }
  CHECK(r.rejectedNonConvex == 0);
}

ir::Graph training(const frontend::Model& m) {
  auto t = autograd::buildTrainingGraph(m.graph, m.image, m.logits, {});
  INFO((t ? "" : t.error().message()));
  REQUIRE(t);
  return std::move(t->graph);
}

}  // namespace

TEST_CASE("llama rules: llama-tiny matches each block rule once per layer", "[partition]") {
  frontend::Model m = tiny("llama-tiny");
  FusionResult fwd = fuse(m.graph, "llama");
  checkCounts(fwd, {{"MHA", 2}, {"GateUp", 2}, {"QKV", 2}, {"Rotary", 4}, {"RepeatKv", 4}, {"Down", 2},
                    {"OutProj", 2}, {"Embedding", 1}, {"RMSNorm", 1}, {"Classification", 1}});
  CHECK(fwd.subgraphs.size() * 5 < m.graph.nodes.size());

  ir::Graph t = training(m);
  FusionResult both = fuse(t, "llama");
  CHECK(both.matchCounts["MHA"] == 2);
  CHECK(both.matchCounts["MHABackward"] == 2);
  CHECK(both.matchCounts["CrossEntropy"] >= 1);
  CHECK(both.matchCounts["ElementwiseBackward"] > 0);
  DecomposeOptions o;
  o.level = OptLevel::O1;
  o.o1RuleList = "llama";
  auto o1 = decompose(t, o);
  REQUIRE(o1);
  o.level = OptLevel::O0;
  auto o0 = decompose(t, o);
  REQUIRE(o0);
  CHECK(o1->size() * 2 < o0->size());  // 371 operators -> 156 subgraphs
  // The two layers' attention subgraphs are one hypersection called twice.
  std::map<int, int> mhaCalls;
  for (const auto& s : *o1)
    if (s.rule == "MHA") ++mhaCalls[s.hypersection];
  CHECK(mhaCalls.size() == 1);
}

TEST_CASE("bloom rules: bloom-tiny's ALiBi attention and embedding LayerNorm match", "[partition]") {
  frontend::Model m = tiny("bloom-tiny");
  FusionResult fwd = fuse(m.graph, "bloom");
  checkCounts(fwd, {{"MHA", 2}, {"QKV", 2}, {"FFN0", 2}, {"FFN1", 2}, {"ProjGemm", 2}, {"Embedding", 1},
                    {"Classification", 1}, {"AttentionMask", 0}});
}

TEST_CASE("gpt_neox rules: neox-tiny's rotary, parallel blocks and their gradients match", "[partition]") {
  frontend::Model m = tiny("neox-tiny");
  const Counts forward = {{"MHA", 2},      {"QKV", 2},       {"FFN0", 2},          {"FFN1", 2},
                          {"ProjGemm", 2}, {"Rotary", 4},    {"Embedding", 1},     {"Classification", 1}};
  FusionResult inf = fuse(m.graph, "gpt_neox_inf");
  checkCounts(inf, forward);
  FusionResult train = fuse(training(m), "gpt_neox_train");
  checkCounts(train, forward);
  CHECK(train.matchCounts["MHABackward"] == 2);
  CHECK(train.matchCounts["FFNBackward"] == 2);
  CHECK(train.matchCounts["CrossEntropy"] >= 1);
}
