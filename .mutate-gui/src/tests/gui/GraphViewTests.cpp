#include <QSignalSpy>
#include <QImage>
#include <catch2/catch.hpp>
#include <set>

#include "GuiTestSupport.h"
#include "graph/GraphData.h"
#include "graph/GraphLayouter.h"
#include "graph/GraphView.h"
#include "style/Palette.h"

using namespace dfc::views;

TEST_CASE("buildGraphData keeps ops and inputs, drops params, knows sections", "[gui][graph]") {
  const GraphData data = buildGraphData(guitest::makeGraph(), guitest::makePlan());
  REQUIRE(data.nodes.size() == 6);  // 5 ops + input x; the 2 params are left out
  CHECK(data.edges.size() == 6);    // x->mm1, mm1->relu1, relu1->mm2, mm2->relu2, relu2->add, relu1->add
  CHECK(data.sectionCount == 3);
  CHECK(data.nodes[0].section == 0);
  CHECK(data.nodes[1].section == 0);
  CHECK(data.nodes[2].section == 1);
  CHECK(data.nodes[3].section == 1);
  CHECK(data.nodes[4].section == 2);
  CHECK(data.nodes[2].hypersection == 0);
  CHECK(data.nodes[4].hypersection == 1);
  CHECK(data.nodes[0].op == QStringLiteral("matmul"));
  CHECK(data.nodes[0].hyperfunction == QStringLiteral("layer1"));
  CHECK(data.nodes[5].kind == GraphNodeKind::Input);
  CHECK(data.nodes[5].section == -1);
}

TEST_CASE("buildGraphData folds hyperfunctions of big graphs into single nodes", "[gui][graph]") {
  GraphDataOptions options;
  options.collapseAbove = 3;
  const GraphData data = buildGraphData(guitest::makeGraph(), guitest::makePlan(), options);
  CHECK(data.collapsed);
  REQUIRE(data.nodes.size() == 4);  // layer1, layer2, the top-level add, input x
  CHECK(data.nodes[0].kind == GraphNodeKind::Collapsed);
  CHECK(data.nodes[0].opCount == 2);
  CHECK(data.edges.size() == 4);    // x->layer1, layer1->layer2, layer2->add, layer1->add
}

TEST_CASE("GraphLayouter places every node off the UI thread and drops stale requests", "[gui][graph]") {
  guitest::ensureApp();
  const GraphData data = buildGraphData(guitest::makeGraph(), guitest::makePlan());
  GraphLayouter layouter;
  QSignalSpy spy(&layouter, &GraphLayouter::layoutReady);
  GraphData smaller = data;
  smaller.edges.clear();
  layouter.requestLayout(smaller);
  const quint64 latest = layouter.requestLayout(data);
  REQUIRE(spy.wait(10000));
  REQUIRE(spy.count() == 1);
  const GraphLayout layout = *qvariant_cast<SharedGraphLayout>(spy.at(0).at(0));
  CHECK(layout.generation == latest);
  CHECK(layout.error.isEmpty());
  REQUIRE(layout.nodeRects.size() == data.nodes.size());
  REQUIRE(layout.edges.size() == data.edges.size());
  std::set<std::pair<int, int>> centres;
  for (const QRectF& rect : layout.nodeRects) {
    CHECK(rect.width() > 10);
    CHECK(layout.bounds.adjusted(-1, -1, 1, 1).contains(rect));
    centres.insert({qRound(rect.center().x()), qRound(rect.center().y())});
  }
  CHECK(centres.size() == data.nodes.size());
  // Top to bottom: the first matmul sits above the residual add.
  CHECK(layout.nodeRects[0].center().y() < layout.nodeRects[4].center().y());
  for (const LayoutEdge& edge : layout.edges) CHECK(edge.points.size() >= 4);
  CHECK(layout.clusters.size() == 2);  // layer1, layer2
}

TEST_CASE("GraphView draws section-coloured nodes once the layout lands", "[gui][graph]") {
  guitest::ensureApp();
  GraphView view;
  view.resize(700, 600);
  view.show();
  QSignalSpy shown(&view, &GraphView::layoutShown);
  view.setGraph(buildGraphData(guitest::makeGraph(), guitest::makePlan()));
  CHECK(view.isLayoutPending());
  REQUIRE(shown.wait(10000));
  CHECK(view.hasLayout());
  const QImage image = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  }
  CHECK(colours.size() > 5);
  CHECK(colours.count(categoricalColor(0).rgb()) == 1);
  CHECK(colours.count(categoricalColor(1).rgb()) == 1);
}
