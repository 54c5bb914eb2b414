#include <catch2/catch.hpp>

#include "partition/FusionRules.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

std::string errorOf(const std::string& text) {
  auto r = parseFusionRules(text, "rules.yaml");
  REQUIRE_FALSE(r);
  return r.error().message();
}

}  // namespace

TEST_CASE("fusion rules: a rule list parses into prioritized pattern DAGs", "[partition]") {
  auto list = parseFusionRules(R"(
- name: Low
  priority: 1
  pattern:
    a: {op_type: relu}
- name: LinearAct
  priority: 10
  heuristic: "max_nodes: 3"
  pattern:
    act: {op_type: [relu, gelu], required: false}
    gemm: {op_type: matmul, child: bias}
    bias: {op_type: bias_add, children: [act]}
    ctx:
      match_first_option:
        - {op_type: reshape, included: false}
        - {op_type: scale}
      child: gemm
)", "rules.yaml");
  REQUIRE(list);
  REQUIRE(list->rules.size() == 2);
  const FusionRule& r = list->rules[0];  // highest priority first
  CHECK(r.name == "LinearAct");
  CHECK(r.heuristic.maxNodes == 3);
  REQUIRE(r.nodes.size() == 4);
  // Topological order (parents first, else declaration order).
  std::vector<std::string> names;
  for (const auto& n : r.nodes) names.push_back(n.name);
  CHECK(names == std::vector<std::string>{"ctx", "gemm", "bias", "act"});
  CHECK_FALSE(r.nodes[3].required);
  CHECK(r.nodes[3].options[0].ops.size() == 2);
  REQUIRE(r.nodes[0].options.size() == 2);
  CHECK_FALSE(r.nodes[0].options[0].included);
  CHECK(r.nodes[0].options[1].included);
  CHECK(r.nodes[2].parents == std::vector<int>{1});
}

TEST_CASE("fusion rules: malformed files name the file, the line and the rule", "[partition]") {
  std::string e = errorOf("- name: R\n  priority: 1\n  pattern:\n    a: {op_type: frobnicate}\n");
  CHECK(e.find("rules.yaml:4") != std::string::npos);
  CHECK(e.find("rule 'R'") != std::string::npos);
  CHECK(e.find("frobnicate") != std::string::npos);

  e = errorOf("- name: R\n  pattern:\n    a: {op_type: relu, child: b}\n");
  CHECK(e.find("rules.yaml:3") != std::string::npos);
  CHECK(e.find("unknown child 'b'") != std::string::npos);

  e = errorOf("- priority: 3\n  pattern:\n    a: {op_type: relu}\n");
  CHECK(e.find("rules.yaml:1") != std::string::npos);
  CHECK(e.find("without a name") != std::string::npos);

  e = errorOf("- name: NoPattern\n  priority: 3\n");
  CHECK(e.find("rule 'NoPattern'") != std::string::npos);
  CHECK(e.find("without a pattern") != std::string::npos);

  e = errorOf("- name: P\n  priority: high\n  pattern:\n    a: {op_type: relu}\n");
  CHECK(e.find("rules.yaml:2") != std::string::npos);
  CHECK(e.find("bad priority 'high'") != std::string::npos);

  e = errorOf("- name: Loop\n  pattern:\n    a: {op_type: relu, child: b}\n    b: {op_type: add, child: a}\n");
  CHECK(e.find("rule 'Loop'") != std::string::npos);
  CHECK(e.find("cycle") != std::string::npos);

  e = errorOf("- name: H\n  heuristic: fastest\n  pattern:\n    a: {op_type: relu}\n");
  CHECK(e.find("unknown heuristic 'fastest'") != std::string::npos);

  e = errorOf("- name: Y\n  pattern: [\n");
  CHECK(e.find("rules.yaml:") != std::string::npos);
}

TEST_CASE("fusion rules: every built-in list loads, unknown names are refused", "[partition]") {
  for (const auto& name : builtinRuleListNames()) {
    auto list = loadFusionRuleList(name);
    INFO(name << ": " << (list ? "" : list.error().message()));
    REQUIRE(list);
    CHECK_FALSE(list->rules.empty());
  }
  auto gpt2 = loadFusionRuleList("gpt2");
  REQUIRE(gpt2);
  std::vector<std::string> names;
  for (const auto& r : gpt2->rules) names.push_back(r.name);
  for (const char* expected : {"Embedding", "MHA", "QKV", "FFN0", "FFN1", "ProjGemm", "AttentionMask", "CrossEntropy",
                               "Classification"})
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  auto missing = loadFusionRuleList("no_such_list");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("no_such_list") != std::string::npos);
}
