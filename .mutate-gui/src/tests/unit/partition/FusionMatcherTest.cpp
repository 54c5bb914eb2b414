#include <catch2/catch.hpp>

#include <set>

#include "autograd/Autograd.h"
#include "frontend/GraphBuilder.h"
#include "frontend/ModelZoo.h"
#include "partition/Decomposer.h"
#include "partition/FusionMatcher.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

FusionRuleList rules(const std::string& text) {
  auto list = parseFusionRules(text, "test.yaml");
  INFO((list ? "" : list.error().message()));
  REQUIRE(list);
  return *list;
}

ir::Graph trainingGraph(const std::string& model) {
  auto m = frontend::buildZooModel(model, 4);
  INFO((m ? "" : m.error().message()));
  REQUIRE(m);
  auto t = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  INFO((t ? "" : t.error().message()));
  REQUIRE(t);
  return std::move(t->graph);
}

// Every node in exactly one subgraph; each subgraph one role; every input of a
// node produced earlier in the schedule (or earlier in its own subgraph).
void checkSchedulable(const ir::Graph& g, const std::vector<Subgraph>& subs) {
  std::vector<int> done(g.nodes.size(), 0);
  size_t count = 0;
  for (const auto& s : subs) {
    REQUIRE_FALSE(s.nodes.empty());
    for (ir::NodeId n : s.nodes) {
      CHECK(g.node(n).role == g.node(s.nodes.front()).role);
      for (ir::ValueId in : g.node(n).inputs)
        if (ir::NodeId p = g.value(in).producer; p != ir::kNoNode) CHECK(done[static_cast<size_t>(p)] == 1);
      CHECK(done[static_cast<size_t>(n)] == 0);
      done[static_cast<size_t>(n)] = 1;
      ++count;
    }
  }
  CHECK(count == g.nodes.size());
}

const char* kLinearRelu = R"(
- name: LinearRelu
  priority: 5
  pattern:
    gemm: {op_type: matmul, child: bias}
    bias: {op_type: bias_add, child: act}
    act: {op_type: relu}
)";

}  // namespace

TEST_CASE("fusion: a chain rule fuses each match once and leaves the rest as singletons", "[partition]") {
  ir::Graph g = trainingGraph("mlp");
  FusionResult r = fuseByRules(g, rules(kLinearRelu));
  CHECK(r.matchCounts["LinearRelu"] == 2);  // fc1 and fc2; fc3 has no relu
  int fused = 0;
  for (const auto& s : r.subgraphs)
    if (s.rule == "LinearRelu") {
      ++fused;
      CHECK(s.nodes.size() == 3);
      CHECK((s.hyperfunction == "fc1" || s.hyperfunction == "fc2"));
    }
  CHECK(fused == 2);
  CHECK(r.subgraphs.size() == g.nodes.size() - 4);
  checkSchedulable(g, r.subgraphs);
}

TEST_CASE("fusion: optional nodes, context nodes and first-option alternatives", "[partition]") {
  ir::Graph g = trainingGraph("mlp");
  SECTION("required: false matches with and without the node") {
    FusionResult r = fuseByRules(g, rules(R"(
- name: Linear
  pattern:
    gemm: {op_type: matmul, child: bias}
    bias: {op_type: bias_add, child: act}
    act: {op_type: relu, required: false}
)"));
    CHECK(r.matchCounts["Linear"] == 3);
    std::multiset<size_t> sizes;
    for (const auto& s : r.subgraphs)
      if (!s.rule.empty()) sizes.insert(s.nodes.size());
    CHECK(sizes == std::multiset<size_t>{2, 3, 3});
    checkSchedulable(g, r.subgraphs);
  }
  SECTION("included: false constrains the match without fusing the node") {
    FusionResult r = fuseByRules(g, rules(R"(
- name: AfterRelu
  pattern:
    act: {op_type: relu, included: false, child: gemm}
    gemm: {op_type: matmul, child: bias}
    bias: {op_type: bias_add}
)"));
    CHECK(r.matchCounts["AfterRelu"] == 2);  // fc2 and fc3 follow a relu; fc1 follows the reshape
    for (const auto& s : r.subgraphs)
      if (!s.rule.empty()) {
        REQUIRE(s.nodes.size() == 2);
        CHECK(g.node(s.nodes[0]).op == ir::OpKind::MatMul);
      }
  }
  SECTION("match_first_option takes the first alternative that matches") {
    FusionResult r = fuseByRules(g, rules(R"(
- name: Head
  pattern:
    gemm: {op_type: matmul, child: tail}
    tail:
      match_first_option:
        - {op_type: relu}
        - {op_type: bias_add}
)"));
    CHECK(r.matchCounts["Head"] == 3);
  }
}

TEST_CASE("fusion: higher priority wins and nodes are fused at most once", "[partition]") {
  ir::Graph g = trainingGraph("mlp");
  FusionResult r = fuseByRules(g, rules(std::string(kLinearRelu) + R"(
- name: BiasRelu
  priority: 9
  pattern:
    bias: {op_type: bias_add, child: act}
    act: {op_type: relu}
)"));
  CHECK(r.matchCounts["BiasRelu"] == 2);
  CHECK(r.matchCounts.count("LinearRelu") == 0);  // its bias_add/relu were taken
  checkSchedulable(g, r.subgraphs);
}

TEST_CASE("fusion: a match that would leave and re-enter the group is rejected", "[partition]") {
  ir::Graph g;
  frontend::GraphBuilder b(g);
  ir::ValueId x = b.input("x", {ir::DType::F32, {4, 8}});
  ir::ValueId r = b.relu(x);
  ir::ValueId s = b.scale(r, 2.0);  // r -> scale -> add: a path outside relu+add
  ir::ValueId y = b.add(r, s);
  g.outputs = {y};
  REQUIRE(b.status());
  FusionResult res = fuseByRules(g, rules(R"(
- name: ReluAdd
  pattern:
    act: {op_type: relu, child: sum}
    sum: {op_type: add}
)"));
  CHECK(res.matchCounts.count("ReluAdd") == 0);
  CHECK(res.rejectedNonConvex == 1);
  CHECK(res.subgraphs.size() == 3);
  // With the middle node in the rule the group is convex and fuses.
  res = fuseByRules(g, rules(R"(
- name: ReluScaleAdd
  pattern:
    act: {op_type: relu, children: [mul, sum]}
    mul: {op_type: scale, child: sum}
    sum: {op_type: add}
)"));
  CHECK(res.matchCounts["ReluScaleAdd"] == 1);
  CHECK(res.subgraphs.size() == 1);
}

TEST_CASE("fusion: -o1 on lenet training fuses conv blocks and keeps the graph schedulable", "[partition]") {
  ir::Graph g = trainingGraph("lenet");
  auto list = rules(R"(
- name: ConvBlock
  priority: 3
  pattern:
    conv: {op_type: conv2d, child: bias}
    bias: {op_type: bias_add, child: act}
    act: {op_type: relu, child: pool}
    pool: {op_type: maxpool2d}
)");
  DecomposeOptions o;
  o.level = OptLevel::O1;
  o.rules = &list;
  auto subs = decompose(g, o);
  REQUIRE(subs);
  int conv = 0;
  for (const auto& s : *subs) {
    conv += s.rule == "ConvBlock";
    CHECK(s.hypersection >= 0);  // -o1 subgraphs dedupe
  }
  CHECK(conv == 2);
  CHECK(subs->size() == g.nodes.size() - 6);
  checkSchedulable(g, *subs);
  o.rules = nullptr;
  o.o1RuleList = "missing_rules.yaml";
  auto bad = decompose(g, o);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("missing_rules.yaml") != std::string::npos);
}
