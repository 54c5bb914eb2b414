// A rule list cannot make -o1 take exponential time (issue 9): 60 chained
// optional nodes against a chain of relus backtracked through ~2^60
// assignments; the search from each anchor now stops after a step budget.
#include <catch2/catch.hpp>

#include "ir/Parser.h"
#include "partition/FusionMatcher.h"

using namespace dfc;
using namespace dfc::partition;

namespace {

ir::Graph reluChain(int n) {
  std::string text = "graph chain {\n  input %x : f32[2,10]\n  param %w : f32[10,10]\n"
                     "  %h0 : f32[2,10] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name=\"mm\"\n";
  for (int i = 1; i <= n; ++i)
    text += "  %h" + std::to_string(i) + " : f32[2,10] = relu(%h" + std::to_string(i - 1) + ") name=\"r" +
            std::to_string(i) + "\"\n";
  text += "  output %h" + std::to_string(n) + "\n}\n";
  auto g = ir::parseGraph(text, "chain.dfir");
  REQUIRE(g);
  return std::move(*g);
}

// n0 (relu, required) -> n1..n{k-1} (optional) -> n{k} (softmax, required, never there).
std::string chainedOptionalRules(int k) {
  std::string text = "- name: Chain\n  priority: 10\n  pattern:\n    n0: {op_type: relu, child: n1}\n";
  for (int i = 1; i < k; ++i)
    text += "    n" + std::to_string(i) + ": {op_type: [relu, matmul], required: false, child: n" + std::to_string(i + 1) + "}\n";
  text += "    n" + std::to_string(k) + ": {op_type: softmax}\n";
  text += "- name: Pair\n  priority: 5\n  pattern:\n    a: {op_type: relu, child: b}\n    b: {op_type: relu}\n";
  return text;
}

}  // namespace

TEST_CASE("a rule of 60 chained optional nodes ends within the step budget", "[partition][fusion][hostile]") {
  ir::Graph g = reluChain(24);
  auto list = parseFusionRules(chainedOptionalRules(60), "chain60.yaml");
  REQUIRE(list);
  FusionResult r = fuseByRules(g, *list);
  CHECK(r.searchesCut.count("Chain") == 1);  // gave up, once per anchor it tried, instead of ~2^60 steps
  CHECK(r.searchesCut.at("Chain") >= 1);
  CHECK(r.matchCounts.count("Chain") == 0);
  CHECK(r.matchCounts.at("Pair") == 12);     // the other rule still fuses the chain two by two
  size_t nodes = 0;
  for (const auto& s : r.subgraphs) nodes += s.nodes.size();
  CHECK(nodes == g.nodes.size());
}

TEST_CASE("ordinary rules never come near the step budget", "[partition][fusion]") {
  ir::Graph g = reluChain(24);
  auto list = parseFusionRules(chainedOptionalRules(3), "chain3.yaml");
  REQUIRE(list);
  FusionResult r = fuseByRules(g, *list);
  CHECK(r.searchesCut.empty());
}

namespace {

// n0 (relu) -> two optional matmul nodes a level, each feeding both of the next level, `levels` deep -> end
// (softmax): 2^levels paths through the optional nodes, 2 x levels nodes.
std::string latticeRules(int levels) {
  std::string text = "- name: Lattice\n  priority: 10\n  pattern:\n    n0: {op_type: relu, children: [a1, b1]}\n";
  for (int i = 1; i <= levels; ++i) {
    const std::string next = i < levels ? "[a" + std::to_string(i + 1) + ", b" + std::to_string(i + 1) + "]" : "[end]";
    for (const char* side : {"a", "b"})
      text += std::string("    ") + side + std::to_string(i) + ": {op_type: [matmul], required: false, children: " +
              next + "}\n";
  }
  return text + "    end: {op_type: softmax}\n";
}

}  // namespace

TEST_CASE("a lattice of optional pattern nodes is walked once per node, not once per path", "[partition][fusion][hostile]") {
  // Issue 36: looking through skipped optional nodes followed every path (2^40 here): the 12 KB rule list
  // exhausted memory. All of them skipped, the rule is relu feeding softmax directly, which the graph has.
  auto g = ir::parseGraph(
      "graph g {\n  input %x : f32[2,10]\n  param %w : f32[10,10]\n"
      "  %m : f32[2,10] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name=\"mm\"\n"
      "  %r : f32[2,10] = relu(%m) name=\"r\"\n  %s : f32[2,10] = softmax(%r) name=\"sm\"\n  output %s\n}\n",
      "g.dfir");
  REQUIRE(g);
  auto list = parseFusionRules(latticeRules(40), "lattice.yaml");
  REQUIRE(list);
  FusionResult r = fuseByRules(*g, *list);
  CHECK(r.matchCounts.at("Lattice") == 1);
  CHECK(r.searchesCut.empty());
  REQUIRE(r.subgraphs.size() == 2);  // mm alone, then r + sm
  CHECK(r.subgraphs[1].nodes.size() == 2);
}
