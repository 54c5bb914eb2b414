// Colour by cost: the palette goes to the costliest hypersections (measured
// time per step where a run measured them, else the estimate), the rest are
// grey, and graph, timeline and schedule show the same colour for each. A
// PEF of 30 hypersections, more than the palette's 24, whose costliest by
// measurement are not the first by id: by identity some of them were grey.
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <set>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "graph/GraphLegend.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "models/ScheduleTableModel.h"
#include "schedule/GanttStrip.h"
#include "schedule/SchedulePanel.h"
#include "style/Palette.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

constexpr int kSections = 30;

QString hsName(int i) { return QStringLiteral("hs%1_op%1").arg(i); }
// Measured per call: a permutation of 1..30 (x100 us), so cost order is not id order.
double measuredUs(int i) { return 100.0 * ((i * 7) % kSections + 1); }

// A chain of 30 relus, each its own section and hypersection; estimate i+1 us.
pef::Pef makeWidePef() {
  pef::Pef pef;
  pef.meta.pefName = pef.meta.model = "wide";
  pef.meta.optLevel = "o0";
  pef.meta.arch = "sn30";
  pef.contentHash = guitest::kPefHash;
  using namespace ir;
  const TensorType t{DType::F32, {4, 4}};
  ValueId v = pef.graph.addInput("x", t);
  for (int i = 0; i < kSections; ++i) {
    const ValueId out = pef.graph.addValue("v" + std::to_string(i), t, ValueKind::Intermediate);
    pef.graph.addNode(OpKind::Relu, "relu" + std::to_string(i), {v}, {out});
    v = out;
    partition::Section s{i, "s" + std::to_string(i), NodeRole::Forward, {i}, "", i, {}};
    s.estimate.latencyUs = i + 1.0;
    s.estimate.pcus = 4;
    pef.plan.sections.push_back(s);
    pef.plan.hypersections.push_back({i, hsName(i).toStdString(), {i}});
    pef.plan.schedule.push_back(i);
  }
  pef.graph.outputs = {v};
  return pef;
}

// Two steps of the 30 calls on the whole-model row, each naming its hypersection.
profile::Trace makeWideTrace() {
  profile::Trace trace;
  trace.threadNames[{1, 0}] = "model";
  trace.metadata["pef_hash"] = guitest::kPefHash;
  double ts = 0;
  for (int step = 0; step < 2; ++step)
    for (int i = 0; i < kSections; ++i) {
      profile::TraceEvent e{'X', hsName(i).toStdString(), "forward", 1, 0, ts, measuredUs(i), {}};
      e.args = {{"section_id", static_cast<double>(i)}, {"hypersection", hsName(i).toStdString()}, {"step", static_cast<double>(step)}};
      trace.events.push_back(e);
      ts += measuredUs(i) + 1;
    }
  return trace;
}

studio::DocumentLoaders wideLoaders() {
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> { return makeWidePef(); };
  loaders.readTrace = [](const std::string&) -> Expected<profile::Trace> { return makeWideTrace(); };
  loaders.measuredSections = [](const std::string&, const std::string&) {
    views::MeasuredSections m;
    for (int i = 0; i < kSections; ++i) m[i] = {2 * measuredUs(i), 2};
    return m;
  };
  return loaders;
}

void waitIdle(studio::MainWindow& window) {
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  for (int i = 0; i < 300 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
  REQUIRE(!window.isBusy());
}

// What each view shows for hypersection i: the graph's node fill, the
// timeline's slice colour, the Gantt box and the schedule table's swatch.
struct Shown {
  QColor graph, timeline, gantt, table;
};

Shown shownColours(const studio::MainWindow& window, int i) {
  Shown out;
  const views::GraphView* graph = window.graphView();
  for (const auto& node : graph->graph().nodes)
    if (node.hypersectionName == hsName(i))
      out.graph = views::nodeColor(node, graph->colorMode(), graph->colorIdentity(), graph->overlay());
  const views::TimelineData& data = window.timelineView()->data();
  for (const auto& row : data.rows)
    for (size_t k = 0; k < row.size(); ++k)
      if (data.trace->string(data.trace->events[row.events[k]].colorKey) == hsName(i).toStdString())
        out.timeline = QColor::fromRgb(row.colors[k]);
  out.gantt = window.schedulePanel()->gantt()->boxColor(i);
  const auto* model = window.schedulePanel()->model();
  out.table = model->data(model->index(i, views::ScheduleTableModel::Hypersection), Qt::DecorationRole).value<QColor>();
  return out;
}

}  // namespace

TEST_CASE("The costliest hypersections get the palette, the same colour in graph, timeline and schedule",
          "[gui][app][palette][cost]") {
  guitest::ensureApp();
  QTemporaryDir dir;  // the run's trace beside the PEF (the loaders make up its contents)
  QFile(dir.filePath(QStringLiteral("wide_chrome_tracing_report.json"))).open(QIODevice::WriteOnly);
  studio::MainWindow window(wideLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.showScreen(studio::MainWindow::Screen::GraphTimeline);
  window.openPef(dir.filePath(QStringLiteral("wide.pef")));
  waitIdle(window);
  REQUIRE(window.timelineView()->data().sliceCount > 0);
  CHECK(window.graphView()->colorMode() == views::GraphColorMode::Cost);

  // By measured time per step, costliest first: i with (7i mod 30) largest.
  std::vector<int> byCost(kSections);
  for (int i = 0; i < kSections; ++i) byCost[static_cast<size_t>(i)] = i;
  std::sort(byCost.begin(), byCost.end(), [](int a, int b) { return measuredUs(a) > measuredUs(b); });
  const int top = views::categoricalCount();
  std::set<QRgb> distinct;
  for (int rank = 0; rank < kSections; ++rank) {
    const int i = byCost[static_cast<size_t>(rank)];
    const Shown c = shownColours(window, i);
    INFO("hypersection " << i << ", cost rank " << rank);
    REQUIRE(c.graph.isValid());
    CHECK(c.timeline == c.graph);
    CHECK(c.gantt == c.graph);
    CHECK(c.table == c.graph);
    if (rank < top) {
      CHECK(c.graph != QColor::fromRgb(views::kOtherColor));
      CHECK(c.graph == views::categoricalColor(rank));  // in cost order
      distinct.insert(c.graph.rgb());
    } else {
      CHECK(c.graph == QColor::fromRgb(views::kOtherColor));
    }
  }
  CHECK(distinct.size() == static_cast<size_t>(top));
  // The legend says how the colours were chosen; the costliest comes first with its time per step.
  CHECK(window.graphPanel()->legendBox()->note()->text().contains(QStringLiteral("costliest")));
  CHECK(window.graphPanel()->legendBox()->note()->text().contains(QStringLiteral("measured time per step")));
  REQUIRE(window.graphPanel()->legend()->count() > 0);
  const QString first = window.graphPanel()->legend()->item(0)->data(views::GraphLegend::kFullTextRole).toString();
  CHECK(first.startsWith(hsName(byCost[0]) + QStringLiteral(" · ")));
  CHECK(window.graphPanel()->legend()->item(0)->toolTip().contains(first));
  CHECK(window.graphPanel()->legend()->item(0)->text().contains(
      QStringLiteral("/step")));  // the figures are never elided
  CHECK(window.timelinePanel()->legendBox()->note()->text().contains(QStringLiteral("costliest")));

  // Colour by identity, chosen once, holds in every view: ids 0..23 in colour, a costly id 29 grey.
  window.setColorScheme(views::ColorScheme::Identity);
  CHECK(window.graphView()->colorMode() == views::GraphColorMode::Hypersection);
  for (int i : {0, 23, 29}) {
    const Shown c = shownColours(window, i);
    INFO("hypersection " << i);
    CHECK(c.graph == (i < top ? views::categoricalColor(i) : QColor::fromRgb(views::kOtherColor)));
    CHECK(c.timeline == c.graph);
    CHECK(c.gantt == c.graph);
    CHECK(c.table == c.graph);
  }
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    window.setColorScheme(views::ColorScheme::Cost);
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/cost-colours.png"));
  }
}
