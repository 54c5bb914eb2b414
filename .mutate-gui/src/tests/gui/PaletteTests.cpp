// The palette's colours can be told apart, and a hypersection has one colour
// in every view of a document.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "graph/GraphView.h"
#include "models/ScheduleTableModel.h"
#include "schedule/GanttStrip.h"
#include "schedule/SchedulePanel.h"
#include "style/ColorIdentity.h"
#include "style/Palette.h"
#include "timeline/TimelineView.h"

using namespace dfc;
using namespace dfc::views;

TEST_CASE("CIEDE2000 matches Sharma's published test pairs", "[gui][palette]") {
  // Sharma, Wu, Dalal (2005), table 1: pairs 1, 7 and 17.
  CHECK(ciede2000({50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}) == Approx(2.0425).margin(1e-4));
  CHECK(ciede2000({50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}) == Approx(2.3669).margin(1e-4));
  CHECK(ciede2000({50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}) == Approx(27.1492).margin(1e-4));
}

TEST_CASE("Every two palette colours differ by CIEDE2000 >= 12, and from the white background", "[gui][palette]") {
  std::vector<QColor> colours;
  for (int i = 0; i < categoricalCount(); ++i) colours.push_back(categoricalColor(i));
  colours.push_back(QColor::fromRgb(kOtherColor));
  REQUIRE(categoricalCount() >= 20);
  double closest = 1e9;
  for (size_t i = 0; i < colours.size(); ++i) {
    CHECK(colorDistance(colours[i], Qt::white) >= 12);
    for (size_t j = i + 1; j < colours.size(); ++j) {
      INFO(colours[i].name().toStdString() << " vs " << colours[j].name().toStdString());
      CHECK(colorDistance(colours[i], colours[j]) >= 12);
      closest = std::min(closest, colorDistance(colours[i], colours[j]));
    }
  }
  CHECK(closest >= 12);
  // Past the palette, everything is "other".
  CHECK(categoricalColor(categoricalCount()) == QColor::fromRgb(kOtherColor));
  CHECK(categoricalColor(-1) == QColor::fromRgb(kOtherColor));
}

TEST_CASE("A plan gives each hypersection its own palette colour, in id order", "[gui][palette]") {
  partition::Plan plan;
  for (int i = 0; i < 30; ++i) plan.hypersections.push_back({i, "hs" + std::to_string(i), {}});
  const ColorIdentity identity = ColorIdentity::fromPlan(plan);
  std::set<QRgb> seen;
  for (int i = 0; i < categoricalCount(); ++i) seen.insert(identity.hypersection(QStringLiteral("hs%1").arg(i)).rgb());
  CHECK(static_cast<int>(seen.size()) == categoricalCount());
  CHECK(identity.hypersection(QStringLiteral("hs29")) == QColor::fromRgb(kOtherColor));
  CHECK(identity.hypersection(QStringLiteral("unknown")) == QColor::fromRgb(kOtherColor));
}

namespace {

// Section calls as our runtime writes them: named by hypersection, with its args.
profile::Trace hypersectionTrace() {
  profile::Trace trace;
  trace.metadata["pef_hash"] = guitest::kPefHash;
  const char* names[] = {"hs0_matmul_relu", "hs0_matmul_relu", "hs1_add"};
  for (int i = 0; i < 30; ++i) {
    profile::TraceEvent ev;
    ev.name = names[i % 3];
    ev.pid = 1;
    ev.tid = 0;
    ev.ts = i * 10.0;
    ev.dur = 8;
    ev.args = {{"section_id", static_cast<double>(i % 3)}, {"hypersection", ev.name}};
    trace.events.push_back(ev);
  }
  // A host phase first by time: busier than any section, it must not take hs0's colour.
  trace.events.push_back({'X', "load PEF", "host", 1, 1, 0, 500, {}});
  return trace;
}

QColor timelineColour(const TimelineView* view, const QString& hypersection) {
  const TimelineData& data = view->data();
  for (const TimelineRow& row : data.rows)
    for (size_t i = 0; i < row.size(); ++i)
      if (data.trace->string(data.trace->events[row.events[i]].colorKey) == hypersection.toStdString())
        return QColor::fromRgb(row.colors[i]);
  return {};
}

}  // namespace

TEST_CASE("The same hypersection has the same colour in graph, timeline and schedule", "[gui][palette][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString tracePath = dir.filePath(QStringLiteral("run.json"));
  QFile(tracePath).open(QIODevice::WriteOnly);
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> {
    pef::Pef pef;
    pef.contentHash = guitest::kPefHash;
    pef.meta.pefName = "tiny";
    pef.graph = guitest::makeGraph();
    pef.plan = guitest::makePlan();
    return pef;
  };
  loaders.readTrace = [](const std::string&) -> Expected<profile::Trace> { return hypersectionTrace(); };
  loaders.latestTraceForPef = [path = tracePath.toStdString()](const std::string&, const std::string&) { return path; };
  studio::MainWindow window(loaders, QStringLiteral("-"));
  window.show();
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  REQUIRE(QTest::qWaitFor([&] { return window.graphView()->hasLayout() && !window.isBusy() &&
                                       window.timelineView()->data().sliceCount > 0; }, 20000));
  window.graphView()->setColorMode(GraphColorMode::Hypersection);

  for (const QString& hs : {QStringLiteral("hs0_matmul_relu"), QStringLiteral("hs1_add")}) {
    INFO(hs.toStdString());
    QColor inGraph;
    for (const LegendEntry& entry : window.graphView()->legend())
      if (entry.key == hs) inGraph = entry.color;
    const int section = hs.startsWith(QLatin1String("hs0")) ? 0 : 2;
    const auto* model = window.schedulePanel()->model();
    const QColor inTable = model->data(model->index(section, ScheduleTableModel::Hypersection), Qt::DecorationRole).value<QColor>();
    REQUIRE(inGraph.isValid());
    CHECK(inGraph != QColor::fromRgb(kOtherColor));
    CHECK(timelineColour(window.timelineView(), hs) == inGraph);
    CHECK(inTable == inGraph);
    CHECK(window.schedulePanel()->gantt()->boxColor(section) == inGraph);
  }
  // Two hypersections, two colours, far apart.
  CHECK(colorDistance(timelineColour(window.timelineView(), QStringLiteral("hs0_matmul_relu")),
                      timelineColour(window.timelineView(), QStringLiteral("hs1_add"))) >= 12);
}
