#include <catch2/catch.hpp>

#include <map>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "partition/Decomposer.h"
#include "partition/FusionMatcher.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

frontend::Model gpt2Mini(int layers) {
  frontend::ZooOptions zo;
  zo.batchSize = 2;
  zo.params = {{"num_layers", layers}};
  auto m = frontend::buildZooModel("gpt2-mini", zo);
  INFO((m ? "" : m.error().message()));
  REQUIRE(m);
  return std::move(*m);
}

}  // namespace

TEST_CASE("gpt2 rules: gpt2-mini with 2 layers matches each block rule twice", "[partition]") {
  frontend::Model m = gpt2Mini(2);
  auto rules = loadFusionRuleList("gpt2");
  REQUIRE(rules);
  FusionResult fwd = fuseByRules(m.graph, *rules);
  CHECK(fwd.matchCounts["MHA"] == 2);
  CHECK(fwd.matchCounts["QKV"] == 2);
  CHECK(fwd.matchCounts["ProjGemm"] == 2);
  CHECK(fwd.matchCounts["FFN0"] == 2);
  CHECK(fwd.matchCounts["FFN1"] == 2);
  CHECK(fwd.matchCounts["Embedding"] == 1);
  CHECK(fwd.matchCounts["Classification"] == 1);
  CHECK(fwd.rejectedNonConvex == 0);
  CHECK(fwd.subgraphs.size() * 4 < m.graph.nodes.size());  // 63 ops -> 12 subgraphs

  auto t = autograd::buildTrainingGraph(m.graph, m.image, m.logits, {});
  REQUIRE(t);
  DecomposeOptions o;
  o.level = OptLevel::O1;
  o.o1RuleList = "gpt2";
  auto o1 = decompose(t->graph, o);
  REQUIRE(o1);
  o.level = OptLevel::O0;
  auto o0 = decompose(t->graph, o);
  REQUIRE(o0);
  CHECK(o1->size() * 3 < o0->size() * 2);  // far fewer than one per operator
  // The two blocks' MHA subgraphs are one hypersection.
  std::map<std::string, std::map<int, int>> callsByRule;
  for (const auto& s : *o1)
    if (!s.rule.empty()) ++callsByRule[s.rule][s.hypersection];
  CHECK(callsByRule["MHA"].size() == 1);
  CHECK(callsByRule["MHA"].begin()->second == 2);
  CHECK(callsByRule["FFN0"].size() == 1);
}

TEST_CASE("gpt2 hypersections: 12 layers give one hypersection per kind with 12 calls", "[partition]") {
  frontend::Model m = gpt2Mini(12);
  DecomposeOptions o;
  o.enableHypersection = true;
  auto subs = decompose(m.graph, o);
  REQUIRE(subs);
  std::map<int, int> calls;
  for (const auto& s : *subs) ++calls[s.hypersection];
  int layerHs = -1;
  for (const auto& s : *subs)
    if (s.hyperfunction == "h.5") layerHs = s.hypersection;
  REQUIRE(layerHs >= 0);
  CHECK(calls[layerHs] == 12);
  for (const auto& s : *subs)
    if (s.hyperfunction.rfind("h.", 0) == 0) CHECK(s.hypersection == layerHs);
}
