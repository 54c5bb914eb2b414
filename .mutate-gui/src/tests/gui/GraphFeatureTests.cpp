#include <QDir>
#include <QXmlStreamReader>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "graph/GraphData.h"
#include "graph/GraphDetails.h"
#include "graph/GraphLayouter.h"
#include "graph/GraphLegend.h"
#include "graph/GraphStyle.h"
#include "graph/GraphView.h"

using namespace dfc::views;

namespace {

std::shared_ptr<const dfc::ir::Graph> sharedGraph() { return std::make_shared<const dfc::ir::Graph>(guitest::makeGraph()); }
std::shared_ptr<const dfc::partition::Plan> sharedPlan() {
  auto plan = guitest::makePlan();
  plan.sections[0].estimate.pcus = 12;
  plan.sections[0].estimate.pmus = 5;
  plan.sections[0].estimate.latencyUs = 7.5;
  return std::make_shared<const dfc::partition::Plan>(plan);
}

}  // namespace

TEST_CASE("Colour modes give one legend entry per op type, section, hypersection, hyperfunction", "[gui][graph]") {
  const GraphData data = buildGraphData(guitest::makeGraph(), guitest::makePlan());
  const ColorIdentity identity = ColorIdentity::fromPlan(guitest::makePlan());
  const auto ops = legendEntries(data, GraphColorMode::OpType, identity);
  REQUIRE(ops.size() == 3);  // add, matmul, relu (the input is left out), by name
  CHECK(ops[1].key == QStringLiteral("matmul"));
  CHECK(ops[1].count == 2);
  const auto sections = legendEntries(data, GraphColorMode::Section, identity);
  CHECK(sections.size() == 3);
  const auto hypers = legendEntries(data, GraphColorMode::Hypersection, identity);
  CHECK(hypers.size() == 2);
  CHECK(hypers[0].count == 4);  // both layers share hypersection 0
  const auto scopes = legendEntries(data, GraphColorMode::Hyperfunction, identity);
  CHECK(scopes.size() == 3);    // layer1, layer2, none
  // Nodes of one key share a colour; different keys differ.
  CHECK(ops[0].color != ops[1].color);

  guitest::ensureApp();
  GraphView view;
  GraphLegend legend;
  legend.attach(&view);
  view.setGraph(data);
  CHECK(legend.count() == 3);
  view.setColorMode(GraphColorMode::Hypersection);
  CHECK(legend.count() == 2);
  // Named by the hypersection, with its calls per step (two layers call hs0).
  CHECK(legend.item(0)->text() == QStringLiteral("hs0_matmul_relu · 2 call(s)"));
}

TEST_CASE("Double-click unfolds a hyperfunction, collapsing folds it again", "[gui][graph]") {
  guitest::ensureApp();
  GraphView view;
  view.resize(800, 600);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  QSignalSpy shown(&view, &GraphView::layoutShown);
  GraphDataOptions options;
  options.collapseAbove = 3;  // fold by default
  view.setModel(sharedGraph(), sharedPlan(), options);
  REQUIRE(shown.wait(10000));
  REQUIRE(view.graph().nodes.size() == 4);
  CHECK(view.isCollapsed(QStringLiteral("layer1")));

  // Double-click the folded layer1 node.
  int folded = -1;
  for (const GraphNode& n : view.graph().nodes)
    if (n.kind == GraphNodeKind::Collapsed && n.name == QStringLiteral("layer1")) folded = n.id;
  REQUIRE(folded >= 0);
  const QPoint at = view.mapFromScene(view.currentLayout().nodeRects[static_cast<size_t>(folded)].center());
  QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, at);
  REQUIRE(shown.wait(10000));
  CHECK(view.graph().nodes.size() == 5);  // layer1's two ops replace its node
  CHECK(!view.isCollapsed(QStringLiteral("layer1")));

  view.collapse(QStringLiteral("layer1"));
  REQUIRE(shown.wait(10000));
  CHECK(view.graph().nodes.size() == 4);
  view.expand(QStringLiteral("layer1"));
  view.expand(QStringLiteral("layer2"));
  REQUIRE(shown.wait(10000));
  while (view.isLayoutPending()) REQUIRE(shown.wait(10000));
  CHECK(view.graph().nodes.size() == 6);  // everything: 5 ops + input
}

TEST_CASE("Search finds nodes by name or op, also inside folded hyperfunctions", "[gui][graph]") {
  guitest::ensureApp();
  GraphView view;
  QSignalSpy shown(&view, &GraphView::layoutShown);
  view.setModel(sharedGraph(), sharedPlan());
  REQUIRE(shown.wait(10000));
  QList<int> hits = view.findNodes(QStringLiteral("RELU"));
  CHECK(hits.size() == 2);
  hits = view.findNodes(QStringLiteral("residual"));
  REQUIRE(hits.size() == 1);
  CHECK(view.graph().nodes[static_cast<size_t>(hits[0])].op == QStringLiteral("add"));
  CHECK(view.findNodes(QStringLiteral("no such op")).isEmpty());

  view.collapse(QStringLiteral("layer2"));
  REQUIRE(shown.wait(10000));
  hits = view.findNodes(QStringLiteral("layer2/relu"));
  REQUIRE(hits.size() == 1);
  CHECK(view.graph().nodes[static_cast<size_t>(hits[0])].kind == GraphNodeKind::Collapsed);
}

TEST_CASE("Node details name op, attributes, shapes, section and estimates", "[gui][graph]") {
  const auto graph = sharedGraph();
  const auto plan = sharedPlan();
  const GraphData data = buildGraphData(*graph, *plan);
  const NodeDetails d = describeNode(data, 0, graph.get(), plan.get());
  CHECK(d.op == QStringLiteral("matmul"));
  CHECK(d.name == QStringLiteral("layer1/matmul"));
  REQUIRE(d.inputShapes.size() == 2);
  CHECK(d.inputShapes[0] == QStringLiteral("x: f32[4,4]"));
  CHECK(d.outputShapes.size() == 1);
  CHECK(d.section == 0);
  CHECK(d.sectionName == QStringLiteral("s0_layer1"));
  CHECK(d.hypersectionName == QStringLiteral("hs0_matmul_relu"));
  CHECK(d.hasEstimate);
  CHECK(d.pcus == 12);
  CHECK(d.latencyUs == 7.5);
}

TEST_CASE("Exports write DOT, SVG and PNG files that parse", "[gui][graph]") {
  guitest::ensureApp();
  GraphView view;
  QSignalSpy shown(&view, &GraphView::layoutShown);
  view.setModel(sharedGraph(), sharedPlan());
  REQUIRE(shown.wait(10000));
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QString error;
  const QString dot = dir.filePath(QStringLiteral("g.dot"));
  REQUIRE(view.exportDot(dot, &error));
  QFile dotFile(dot);
  REQUIRE(dotFile.open(QIODevice::ReadOnly));
  const QByteArray dotText = dotFile.readAll();
  CHECK(dotText.startsWith("digraph"));
  CHECK(dotText.contains("->"));
  CHECK(dotText.contains("cluster_"));

  const QString svg = dir.filePath(QStringLiteral("g.svg"));
  REQUIRE(view.exportSvg(svg, &error));
  QFile svgFile(svg);
  REQUIRE(svgFile.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&svgFile);
  QString root;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && root.isEmpty()) root = xml.name().toString();
  }
  CHECK(!xml.hasError());
  CHECK(root == QStringLiteral("svg"));

  const QString png = dir.filePath(QStringLiteral("g.png"));
  REQUIRE(view.exportPng(png, &error));
  const QImage image(png);
  REQUIRE(!image.isNull());
  CHECK(image.width() > 50);

  CHECK(!view.exportDot(QStringLiteral("/nonexistent/dir/g.dot"), &error));
  CHECK(!error.isEmpty());

  // A FIFO or a directory under the chosen name is refused and left as it was (issue 9).
  const QString fifo = dir.filePath(QStringLiteral("g.fifo"));
  REQUIRE(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
  for (const QString& target : {fifo, dir.path()}) {
    for (int format = 0; format < 3; ++format) {
      error.clear();
      const bool ok = format == 0 ? view.exportDot(target, &error) : format == 1 ? view.exportSvg(target, &error)
                                                                               : view.exportPng(target, &error);
      INFO(target.toStdString() << " format " << format);
      CHECK(!ok);
      CHECK(error.contains(QStringLiteral("refusing to replace it")));
    }
    CHECK(QFileInfo(target).isDir() == (target == dir.path()));
  }
  CHECK(QFileInfo(fifo).exists());
  struct stat st {};
  REQUIRE(::stat(fifo.toLocal8Bit().constData(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("Labels hide when zoomed far out and come back when zoomed in", "[gui][graph]") {
  guitest::ensureApp();
  GraphView view;
  QSignalSpy shown(&view, &GraphView::layoutShown);
  view.setModel(sharedGraph(), sharedPlan());
  REQUIRE(shown.wait(10000));
  view.setZoom(1.0);
  CHECK(view.labelsVisible());
  view.setZoom(0.1);
  CHECK(!view.labelsVisible());
  view.setZoom(1.0);
  CHECK(view.labelsVisible());
}

TEST_CASE("Two graph views never run Graphviz at once: their layouts share one thread", "[gui][graph]") {
  guitest::ensureApp();
  GraphLayouter a;
  GraphLayouter b;
  CHECK(a.layoutThread() == b.layoutThread());
  CHECK(a.layoutThread() != QThread::currentThread());
  // Both still get their own results.
  QSignalSpy spyA(&a, &GraphLayouter::layoutReady);
  QSignalSpy spyB(&b, &GraphLayouter::layoutReady);
  const GraphData data = buildGraphData(guitest::makeGraph(), guitest::makePlan());
  a.requestLayout(data);
  b.requestLayout(data);
  REQUIRE((spyA.count() > 0 || spyA.wait(10000)));
  REQUIRE((spyB.count() > 0 || spyB.wait(10000)));
  CHECK(spyA.count() == 1);
  CHECK(spyB.count() == 1);
}

TEST_CASE("Legend lists hyperfunctions in natural order: h.2 before h.10", "[gui][graph]") {
  GraphData data;
  for (const char* scope : {"h.10", "h.2", "h.1", "h.02x", "h.11"}) {
    GraphNode node;
    node.id = static_cast<int>(data.nodes.size());
    node.op = QStringLiteral("add");
    node.hyperfunction = QString::fromLatin1(scope);
    data.nodes.push_back(node);
  }
  QStringList labels;
  for (const LegendEntry& e : legendEntries(data, GraphColorMode::Hyperfunction, ColorIdentity())) labels << e.key;
  CHECK(labels == QStringList({QStringLiteral("h.1"), QStringLiteral("h.2"), QStringLiteral("h.02x"), QStringLiteral("h.10"),
                               QStringLiteral("h.11")}));
}
