// --compiler-mode nlp at -o3: the mapper keeps attention blocks within one section.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "partition/CompilerMode.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

namespace {

partition::Plan mapGpt2(const ir::Graph& g, double scale, bool keepAttention, bool hypersections = false) {
  partition::DecomposeOptions d;
  d.enableHypersection = hypersections;
  auto subgraphs = partition::decompose(g, d);
  REQUIRE(subgraphs.ok());
  mapping::MappingOptions o;
  o.forwardScale = o.backwardScale = o.optimizerScale = scale;
  o.keepAttentionBlocks = keepAttention;
  auto plan = mapping::mapSections(g, *subgraphs, arch::CostModel(test::preset("sn30")), d.level, o);
  REQUIRE(plan.ok());
  return std::move(*plan);
}

// Attention blocks (a role and an attention scope) whose nodes land in more than one section.
int splitAttentionBlocks(const ir::Graph& g, const partition::Plan& plan) {
  std::map<std::pair<int, std::string>, std::set<int>> sectionsOfBlock;
  for (const auto& s : plan.sections)
    for (ir::NodeId id : s.nodes) {
      const ir::Node& n = g.node(id);
      std::string_view block = partition::attentionScope(n.scope);
      if (!block.empty()) sectionsOfBlock[{static_cast<int>(n.role), std::string(block)}].insert(s.id);
    }
  int split = 0;
  for (const auto& [block, sections] : sectionsOfBlock) split += sections.size() > 1;
  return split;
}

}  // namespace

TEST_CASE("nlp mode keeps every attention block that fits within one section, the default cuts some") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 8);
  for (double scale : {0.1, 0.2}) {
    INFO("scale " << scale);
    auto base = mapGpt2(g, scale, false);
    auto nlp = mapGpt2(g, scale, true);
    CHECK(splitAttentionBlocks(g, base) >= 1);
    CHECK(splitAttentionBlocks(g, nlp) == 0);
    // Closing a section early costs at most one extra section per block the default cut.
    CHECK(nlp.sections.size() <= base.sections.size() + static_cast<size_t>(splitAttentionBlocks(g, base)));
  }
}

TEST_CASE("nlp mode still maps attention blocks larger than a section, cut greedily") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 8);
  auto nlp = mapGpt2(g, 0.02, true);
  CHECK(splitAttentionBlocks(g, nlp) >= 1);
  CHECK(nlp.sections.size() == mapGpt2(g, 0.02, false).sections.size());
}

TEST_CASE("nlp mode at -o3 (hypersections on) never lets a section span two layers") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 8);
  auto base = mapGpt2(g, 1.0, false);
  auto nlp = mapGpt2(g, 1.0, true, true);
  CHECK(nlp.sections.size() > base.sections.size());
  CHECK(nlp.hypersections.size() < nlp.sections.size());  // the two layers share their hypersections
  for (const auto& s : nlp.sections) {
    std::string top = g.node(s.nodes.front()).scope.substr(0, g.node(s.nodes.front()).scope.find('/'));
    for (ir::NodeId id : s.nodes) CHECK(g.node(id).scope.substr(0, g.node(id).scope.find('/')) == top);
  }
}

TEST_CASE("a section's hyperfunction is the deepest scope holding all its nodes") {
  ir::Graph g = test::trainingGraph("gpt2-mini", 8);
  auto plan = mapGpt2(g, 1.0, true, true);
  int wholeLayers = 0;
  for (const auto& s : plan.sections) {
    INFO(s.name);
    for (ir::NodeId id : s.nodes) {
      const std::string& scope = g.node(id).scope;
      CHECK(scope.rfind(s.hyperfunction, 0) == 0);  // every node lies inside it
      CHECK((scope.size() == s.hyperfunction.size() || s.hyperfunction.empty() || scope[s.hyperfunction.size()] == '/'));
    }
    // A whole forward layer (attention and MLP) is "h.N", not the scope of its first node.
    bool attn = false, mlp = false;
    for (ir::NodeId id : s.nodes) {
      attn |= g.node(id).scope.find("/attn") != std::string::npos;
      mlp |= g.node(id).scope.find("/mlp") != std::string::npos;
    }
    if (attn && mlp) {
      ++wholeLayers;
      CHECK((s.hyperfunction == "h.0" || s.hyperfunction == "h.1"));
    }
  }
  CHECK(wholeLayers >= 2);
}
