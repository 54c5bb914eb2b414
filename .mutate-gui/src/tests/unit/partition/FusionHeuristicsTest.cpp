// Each -o1 fusion heuristic (partition/FusionRules.h) on the smallest graph
// where it changes the result: the same rule with and without it, and the
// boundary where it starts to refuse.
#include <catch2/catch.hpp>

#include "frontend/GraphBuilder.h"
#include "partition/FusionMatcher.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

ir::TensorType f32(ir::Shape shape) { return {ir::DType::F32, std::move(shape)}; }

FusionResult fuse(const ir::Graph& g, const std::string& text) {
  auto list = parseFusionRules(text, "test.yaml");
  INFO((list ? "" : list.error().message()));
  REQUIRE(list);
  return fuseByRules(g, *list);
}

// A rule "ReluScale" fusing relu -> scale, with `heuristic` (YAML, may be empty).
std::string reluScale(const std::string& heuristic) {
  return "- name: ReluScale\n" + (heuristic.empty() ? "" : "  heuristic: " + heuristic + "\n") +
         "  pattern:\n"
         "    act: {op_type: relu, child: mul}\n"
         "    mul: {op_type: scale}\n";
}

size_t largestGroup(const FusionResult& r) {
  size_t most = 0;
  for (const Subgraph& s : r.subgraphs) most = std::max(most, s.nodes.size());
  return most;
}

}  // namespace

TEST_CASE("fusion heuristics: a match never mixes roles", "[partition][fusion]") {
  // x -> relu (forward) -> scale: fused when both are forward, not when the scale is backward.
  auto graph = [](ir::NodeRole scaleRole) {
    ir::Graph g;
    frontend::GraphBuilder b(g);
    ir::ValueId r = b.relu(b.input("x", f32({4, 4})));
    b.setRole(scaleRole);
    g.outputs = {b.scale(r, 2.0)};
    REQUIRE(b.status());
    return g;
  };
  FusionResult same = fuse(graph(ir::NodeRole::Forward), reluScale(""));
  CHECK(same.matchCounts["ReluScale"] == 1);
  CHECK(same.subgraphs.size() == 1);
  FusionResult mixed = fuse(graph(ir::NodeRole::Backward), reluScale(""));
  CHECK(mixed.matchCounts.count("ReluScale") == 0);
  CHECK(mixed.subgraphs.size() == 2);
}

TEST_CASE("fusion heuristics: max_nodes refuses a match of more nodes, and not one of exactly that many", "[partition][fusion]") {
  // matmul -> bias_add -> relu, with the relu optional: the matcher falls back
  // to the two-node match when three is too many.
  ir::Graph g;
  frontend::GraphBuilder b(g);
  g.outputs = {b.relu(b.linear(b.input("x", f32({4, 8})), 8, 8))};
  REQUIRE(b.status());
  auto rule = [](const std::string& heuristic) {
    return "- name: Linear\n  heuristic: \"" + heuristic +
           "\"\n"
           "  pattern:\n"
           "    gemm: {op_type: matmul, child: bias}\n"
           "    bias: {op_type: bias_add, child: act}\n"
           "    act: {op_type: relu, required: false}\n";
  };
  FusionResult three = fuse(g, rule("max_nodes: 3"));
  CHECK(three.matchCounts["Linear"] == 1);
  CHECK(largestGroup(three) == 3);
  FusionResult two = fuse(g, rule("max_nodes: 2"));
  CHECK(two.matchCounts["Linear"] == 1);
  CHECK(largestGroup(two) == 2);
  CHECK(two.subgraphs.size() == 2);
  FusionResult one = fuse(g, rule("max_nodes: 1"));
  CHECK(one.matchCounts.count("Linear") == 0);
  CHECK(one.subgraphs.size() == 3);
}

TEST_CASE("fusion heuristics: same_scope refuses a match across hyperfunctions", "[partition][fusion]") {
  auto graph = [](const std::string& scaleScope) {
    ir::Graph g;
    frontend::GraphBuilder b(g);
    ir::ValueId x = b.input("x", f32({4, 4}));
    ir::ValueId r;
    {
      auto s = b.scope("h.0");
      r = b.relu(x);
    }
    auto s = b.scope(scaleScope);
    g.outputs = {b.scale(r, 2.0)};
    REQUIRE(b.status());
    return g;
  };
  ir::Graph across = graph("h.1");
  CHECK(fuse(across, reluScale("")).matchCounts["ReluScale"] == 1);
  FusionResult refused = fuse(across, reluScale("same_scope"));
  CHECK(refused.matchCounts.count("ReluScale") == 0);
  CHECK(refused.subgraphs.size() == 2);
  CHECK(fuse(graph("h.0"), reluScale("same_scope")).matchCounts["ReluScale"] == 1);
}

TEST_CASE("fusion heuristics: no_external_uses keeps intermediates inside the group", "[partition][fusion]") {
  // relu -> scale, and the relu's result also read by an add outside the rule
  // (or a graph output). The scale's own result may leave: it is the last node.
  enum class Relu { Inside, ReadOutside, GraphOutput };
  auto graph = [](Relu relu) {
    ir::Graph g;
    frontend::GraphBuilder b(g);
    ir::ValueId x = b.input("x", f32({4, 4}));
    ir::ValueId r = b.relu(x);
    ir::ValueId s = b.scale(r, 2.0);
    g.outputs = {b.add(s, x)};  // the last fused node's result is read outside: allowed
    if (relu == Relu::ReadOutside) g.outputs.push_back(b.add(r, x));
    if (relu == Relu::GraphOutput) g.outputs.push_back(r);
    REQUIRE(b.status());
    return g;
  };
  CHECK(fuse(graph(Relu::Inside), reluScale("no_external_uses")).matchCounts["ReluScale"] == 1);
  CHECK(fuse(graph(Relu::ReadOutside), reluScale("")).matchCounts["ReluScale"] == 1);
  CHECK(fuse(graph(Relu::ReadOutside), reluScale("no_external_uses")).matchCounts.count("ReluScale") == 0);
  CHECK(fuse(graph(Relu::GraphOutput), reluScale("")).matchCounts["ReluScale"] == 1);
  CHECK(fuse(graph(Relu::GraphOutput), reluScale("no_external_uses")).matchCounts.count("ReluScale") == 0);
}
