// Compare by provenance on real compiles: gpt2-mini at -o1 (dozens of fused
// sections) against -o3 (forward, backward, optimizer), both run a few steps.
// The -o3 forward section's row must hold exactly the -o1 sections of forward
// operators, each side's rows must add up to that side's step, and a click
// on a node must select its group on both sides.
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>
#include <set>

#include "GuiTestSupport.h"
#include "compare/CompareView.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "graph/GraphView.h"
#include "pef/Pef.h"
#include "profile/CompactTrace.h"

using namespace dfc;

namespace {

struct Compiled {
  std::shared_ptr<const pef::Pef> pef;
  std::shared_ptr<const profile::CompactTrace> trace;
};

Compiled compileAndRun(const QTemporaryDir& dir, const char* name, partition::OptLevel level) {
  driver::CompileOptions c;
  c.model = "gpt2-mini";
  c.level = level;
  c.pefName = name;
  c.outputFolder = dir.filePath(QString::fromLatin1(name)).toStdString();
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  REQUIRE(compiled);
  driver::RunOptions r;
  r.pefPath = compiled->pefPath;
  r.dbPath = "-";
  r.trainLimit = 64;
  r.testLimit = 16;
  auto ran = driver::run(r);
  REQUIRE(ran);
  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef);
  auto trace = profile::readCompactTrace(ran->tracePath);
  REQUIRE(trace);
  return {std::make_shared<const pef::Pef>(std::move(*pef)),
          std::make_shared<const profile::CompactTrace>(std::move(*trace))};
}

std::set<int> sectionsWithRole(const pef::Pef& p, ir::NodeRole role) {
  std::set<int> out;
  for (const auto& s : p.plan.sections)
    for (ir::NodeId n : s.nodes)
      if (p.graph.nodes[static_cast<size_t>(n)].role == role) out.insert(s.id);
  return out;
}

void waitForLayout(views::GraphView* view) {
  QSignalSpy shown(view, &views::GraphView::layoutShown);
  for (int i = 0; i < 300 && (view->isLayoutPending() || !view->hasLayout()); ++i) shown.wait(100);
  REQUIRE(view->hasLayout());
}

// The nodes of `view` that hold one of `sections` (a folded layer when any of its ops does).
std::set<int> nodesHolding(const views::GraphView* view, const std::vector<int>& sections) {
  std::set<int> out;
  const std::set<int> wanted(sections.begin(), sections.end());
  for (const auto& node : view->graph().nodes) {
    bool holds = wanted.count(node.section) > 0;
    for (int s : node.sections) holds = holds || wanted.count(s) > 0;
    if (holds && node.kind != views::GraphNodeKind::Stub) out.insert(node.id);
  }
  return out;
}

// A plain op among `nodes` in one of these sections.
int nodeOnlyOf(const views::GraphView* view, const std::set<int>& nodes, const std::vector<int>& sections) {
  const std::set<int> wanted(sections.begin(), sections.end());
  for (int id : nodes) {
    const auto& node = view->graph().nodes[static_cast<size_t>(id)];
    bool only = node.kind == views::GraphNodeKind::Op;
    for (int s : node.sections) only = only && wanted.count(s) > 0;
    if (only) return id;
  }
  FAIL("no op of these sections is shown");
  return -1;
}

void click(views::GraphView* view, int node) {
  const QRectF rect = view->currentLayout().nodeRects.at(static_cast<size_t>(node));
  view->centerOn(rect.center());
  QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->mapFromScene(rect.center()));
}

int selectedTableGroup(const QTableWidget* table) {
  const auto rows = table->selectionModel()->selectedRows();
  return rows.size() == 1 ? table->item(rows.first().row(), 0)->data(Qt::UserRole + 1).toInt() : -1;
}

}  // namespace

TEST_CASE("Compare matches gpt2-mini -o1 and -o3 by the operators each section holds", "[gui][compare][provenance]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const Compiled o1 = compileAndRun(dir, "g1", partition::OptLevel::O1);
  const Compiled o3 = compileAndRun(dir, "g3", partition::OptLevel::O3);
  views::CompareView view;
  view.resize(1500, 900);
  view.showSideBySide();
  view.show();
  view.setLeft(o1.pef, o1.trace);
  view.setRight(o3.pef, o3.trace);
  REQUIRE(view.match());
  const views::SectionMatch& match = *view.match();

  // The -o3 forward section's row: exactly the -o1 sections holding forward operators.
  const std::set<int> forward3 = sectionsWithRole(*o3.pef, ir::NodeRole::Forward);
  REQUIRE(forward3.size() == 1);
  const int group = match.groupOf(1, *forward3.begin());
  REQUIRE(group >= 0);
  const views::SectionGroup& g = match.groups[static_cast<size_t>(group)];
  CHECK(g.sections[1] == std::vector<int>(forward3.begin(), forward3.end()));
  const std::set<int> forward1 = sectionsWithRole(*o1.pef, ir::NodeRole::Forward);
  CHECK(forward1.size() > 10);
  CHECK(std::set<int>(g.sections[0].begin(), g.sections[0].end()) == forward1);
  CHECK(g.change == views::SectionChange::Merged);
  CHECK(g.measured());

  // Each side's rows add up to that side's own step, estimated and measured.
  for (int side = 0; side < 2; ++side) {
    const Compiled& c = side == 0 ? o1 : o3;
    const views::CompareSide whole = views::summarizeSide(*c.pef, c.trace.get());
    double est = 0, measured = 0;
    for (const auto& row : match.groups) {
      est += row.estUs[side];
      measured += row.measuredUs[side].value_or(0);
    }
    INFO("side " << side);
    CHECK(est == Approx(whole.estimatedUs));
    CHECK(measured == Approx(whole.measuredPerStepUs()));
    CHECK(whole.measuredPerStepUs() > 0);
  }
  // The table shows one row per group (not one per hypersection of each side).
  CHECK(view.matchedTable()->rowCount() == static_cast<int>(match.groups.size()));
  CHECK(view.matchedTable()->rowCount() <= 6);

  // A click on a forward op of the left graph selects the group on both sides
  // (every op shown: a folded layer holds forward and backward sections).
  for (int side = 0; side < 2; ++side) {
    waitForLayout(view.graph(side));
    view.graph(side)->expandAll();
    waitForLayout(view.graph(side));
  }
  const std::set<int> leftNodes = nodesHolding(view.graph(0), g.sections[0]);
  REQUIRE(!leftNodes.empty());
  click(view.graph(0), nodeOnlyOf(view.graph(0), leftNodes, g.sections[0]));
  CHECK(view.selectedGroup() == group);
  CHECK(selectedTableGroup(view.matchedTable()) == group);
  const QList<int> right = view.graph(1)->highlightedNodes();
  CHECK(std::set<int>(right.begin(), right.end()) == nodesHolding(view.graph(1), g.sections[1]));
  const QList<int> left = view.graph(0)->highlightedNodes();
  CHECK(std::set<int>(left.begin(), left.end()) == leftNodes);

  // And the other way: a right node of another group selects that group on the left.
  const std::set<int> backward3 = sectionsWithRole(*o3.pef, ir::NodeRole::Backward);
  REQUIRE(!backward3.empty());
  const int backGroup = match.groupOf(1, *backward3.begin());
  const std::set<int> backNodes = nodesHolding(view.graph(1), {*backward3.begin()});
  REQUIRE(!backNodes.empty());
  click(view.graph(1), nodeOnlyOf(view.graph(1), backNodes, {*backward3.begin()}));
  CHECK(view.selectedGroup() == backGroup);
  const QList<int> leftBack = view.graph(0)->highlightedNodes();
  CHECK(std::set<int>(leftBack.begin(), leftBack.end()) ==
        nodesHolding(view.graph(0), match.groups[static_cast<size_t>(backGroup)].sections[0]));
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR"))
    view.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/compare-provenance.png"));
}
