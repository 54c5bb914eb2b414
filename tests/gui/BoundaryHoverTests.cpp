// Issue 35, "why here": hovering an edge between two sections in the graph
// shows the reason recorded for the boundary (partition/CutReason.h); an edge
// inside a section shows none.
#include <QPainterPath>
#include <QSignalSpy>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "graph/GraphView.h"

using namespace dfc;

namespace {

// The middle of the drawn edge from node `from` to node `to`, in viewport coordinates.
QPoint edgeMiddle(const views::GraphView& view, int from, int to) {
  const views::GraphLayout& layout = view.currentLayout();
  for (const views::LayoutEdge& e : layout.edges) {
    if (e.from != from || e.to != to) continue;
    QPainterPath path(e.points.front());
    size_t i = 1;
    for (; i + 2 < e.points.size(); i += 3) path.cubicTo(e.points[i], e.points[i + 1], e.points[i + 2]);
    for (; i < e.points.size(); ++i) path.lineTo(e.points[i]);
    return view.mapFromScene(path.pointAtPercent(0.5));
  }
  return {-1, -1};
}

}  // namespace

TEST_CASE("Hovering a section boundary edge shows the recorded cut reason", "[gui][graph][why]") {
  guitest::ensureApp();
  auto graph = std::make_shared<const ir::Graph>(guitest::makeGraph());
  partition::Plan plan = guitest::makePlan();
  plan.sections[1].cut = {partition::CutKind::PcuBudget, "40 PCUs open + 12 for 'layer2/matmul' (matmul) > budget 48",
                          40, 12, 48};
  plan.sections[2].cut = {partition::CutKind::Hyperfunction, "hyperfunction '' starts", 0, 0, 0};
  views::GraphView view;
  view.resize(900, 900);
  view.show();
  QSignalSpy shown(&view, &views::GraphView::layoutShown);
  view.setModel(graph, std::make_shared<const partition::Plan>(plan));
  REQUIRE((shown.count() > 0 || shown.wait(20000)));
  view.setZoom(1.0);
  QApplication::processEvents();
  // Graph nodes 0..4 are the ops in order: layer1 matmul, relu (s0), layer2 matmul, relu (s1), the add (s2).
  const QPoint boundary = edgeMiddle(view, 1, 2);
  REQUIRE(boundary.x() >= 0);
  const QString tip = view.toolTipAtViewPos(boundary);
  CHECK(tip.contains(QStringLiteral("s0_layer1 → s1_layer2")));
  CHECK(tip.contains(QStringLiteral("pcu_budget: 40 PCUs open + 12 for 'layer2/matmul' (matmul) > budget 48")));
  // The skip edge s0 -> s2: s2's reason, against the section before it (s1).
  const QString skip = view.toolTipAtViewPos(edgeMiddle(view, 1, 4));
  CHECK(skip.contains(QStringLiteral("apart from s1_layer2")));
  CHECK(skip.contains(QStringLiteral("hyperfunction: hyperfunction '' starts")));
  // Inside a section: no boundary.
  CHECK_FALSE(view.toolTipAtViewPos(edgeMiddle(view, 0, 1)).contains(QStringLiteral("Section boundary")));
}
