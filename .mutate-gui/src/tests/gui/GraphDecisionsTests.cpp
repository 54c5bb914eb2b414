// Graph nodes to decisions: op nodes by name, a folded layer by its scope
// glob, a together group per role, a cut before a folded layer's first op.
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "graph/GraphDecisions.h"

using namespace dfc;
using mapping::DecisionKind;
using views::DecisionAction;

namespace {

int nodeNamed(const views::GraphData& data, const QString& name) {
  for (const auto& n : data.nodes)
    if (n.name == name) return n.id;
  FAIL("no node " + name.toStdString());
  return -1;
}

}  // namespace

TEST_CASE("Picked op nodes become decisions naming their ops", "[gui][decisions]") {
  const ir::Graph graph = guitest::makeGraph();
  const views::GraphData data = views::buildGraphData(graph, guitest::makePlan());
  const QList<int> picked = {nodeNamed(data, "layer1/relu"), nodeNamed(data, "layer2/matmul"), nodeNamed(data, "x")};
  auto together = views::decisionsForNodes(data, graph, picked, DecisionAction::Together);
  REQUIRE(together.size() == 1);
  CHECK(together[0].kind == DecisionKind::Together);
  CHECK(together[0].patterns == std::vector<std::string>{"layer1/relu", "layer2/matmul"});  // the input is no op
  CHECK(together[0].role == ir::NodeRole::Forward);
  auto cut = views::decisionsForNodes(data, graph, picked, DecisionAction::CutBefore);
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].kind == DecisionKind::CutBefore);
  CHECK(cut[0].patterns == std::vector<std::string>{"layer1/relu", "layer2/matmul"});
  auto chip = views::decisionsForNodes(data, graph, picked, DecisionAction::AssignChip, 3);
  REQUIRE(chip.size() == 1);
  CHECK(chip[0].kind == DecisionKind::Chip);
  CHECK(chip[0].chip == 3);
  CHECK(views::decisionsForNodes(data, graph, {}, DecisionAction::Together).empty());
}

TEST_CASE("A folded layer stands for its ops: a scope glob, a cut before its first op", "[gui][decisions]") {
  const ir::Graph graph = guitest::makeGraph();
  views::GraphDataOptions options;
  options.collapsedScopes = std::set<QString>{QStringLiteral("layer2")};
  const views::GraphData data = views::buildGraphData(graph, guitest::makePlan(), options);
  const int folded = nodeNamed(data, "layer2");
  REQUIRE(data.nodes[static_cast<size_t>(folded)].kind == views::GraphNodeKind::Collapsed);
  auto together = views::decisionsForNodes(data, graph, {folded}, DecisionAction::Together);
  REQUIRE(together.size() == 1);
  CHECK(together[0].patterns == std::vector<std::string>{"layer2/*"});
  CHECK(mapping::matchDecision(graph, together[0]) == std::vector<ir::NodeId>{2, 3});
  auto cut = views::decisionsForNodes(data, graph, {folded}, DecisionAction::CutBefore);
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].patterns == std::vector<std::string>{"layer2/matmul"});
  auto chip = views::decisionsForNodes(data, graph, {folded}, DecisionAction::AssignChip, 1);
  REQUIRE(chip.size() == 1);
  CHECK(chip[0].patterns == std::vector<std::string>{"layer2/*"});
}
