#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "graph/GraphView.h"
#include "timeline/RangeTable.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

studio::DocumentLoaders fakeLoaders(const std::string& tracePath) {
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> {
    pef::Pef pef;
    pef.contentHash = guitest::kPefHash;
    pef.meta.pefName = "tiny";
    pef.meta.optLevel = "o3";
    pef.meta.arch = "sn30";
    pef.graph = guitest::makeGraph();
    pef.plan = guitest::makePlan();
    return pef;
  };
  loaders.readTrace = [](const std::string&) -> Expected<profile::Trace> { return guitest::makeTrace(); };
  loaders.latestTraceForPef = [tracePath](const std::string&, const std::string&) { return tracePath; };
  return loaders;
}

// Opens tiny.pef (and, through the fake store, its trace) and waits for the window to be idle.
void openAndWait(studio::MainWindow& window, const QTemporaryDir& dir) {
  window.show();
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  for (int i = 0; i < 100 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
}

}  // namespace

TEST_CASE("MainWindow opens a PEF, finds its run's trace and shows both", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);  // the store's trace path must exist
  studio::MainWindow window(fakeLoaders(trace.toStdString()));
  openAndWait(window, dir);
  REQUIRE(!window.isBusy());
  CHECK(window.graphView()->hasLayout());
  CHECK(window.timelineView()->data().sliceCount == guitest::kModelSlices + 5);
  CHECK(window.windowTitle().contains(QStringLiteral("tiny")));

  const QImage image = window.grab().toImage();
  REQUIRE(!image.isNull());
  // The trace's rows are drawn: the timeline differs from one with nothing open.
  studio::MainWindow empty(fakeLoaders(trace.toStdString()));
  empty.resize(window.size());
  empty.show();
  QApplication::processEvents();
  CHECK(apptest::changedShare(window.timelineView()->grab().toImage(), empty.timelineView()->grab().toImage()) > 0.02);
  // Lets a human look at the window: DFC_GUI_SCREENSHOT=/tmp/shot.png test_gui
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT")) image.save(qEnvironmentVariable("DFC_GUI_SCREENSHOT"));

  auto* timeline = window.timelineView();
  timeline->selectSlice({1, 4});
  CHECK(window.detailsPane()->toPlainText().contains(QStringLiteral("section_id")));
}

TEST_CASE("MainWindow reports a broken file instead of crashing", "[gui][app]") {
  guitest::ensureApp();
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string& path) -> Expected<pef::Pef> {
    return makeError(path + ": bad magic");
  };
  studio::MainWindow window(loaders);
  window.show();
  QSignalSpy failed(&window, &studio::MainWindow::loadFailed);
  window.openFile(QStringLiteral("/nowhere/broken.pef"));
  REQUIRE(failed.wait(5000));
  CHECK(failed.at(0).at(0).toString().contains(QStringLiteral("bad magic")));
  // The failed load leaves nothing busy. (The runs panel's first refresh runs on its own
  // thread and may still be going on a loaded machine: wait for it, do not race it.)
  CHECK(QTest::qWaitFor([&] { return !window.isBusy(); }, 5000));
  window.openFile(QStringLiteral("/nowhere/trace.json"));  // no trace reader: error, no crash
  REQUIRE(failed.wait(5000));
}

TEST_CASE("The shared selection links timeline slices, graph nodes and the graph outline", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);
  studio::MainWindow window(fakeLoaders(trace.toStdString()));
  openAndWait(window, dir);
  REQUIRE(!window.isBusy());
  auto* timeline = window.timelineView();
  auto* selection = window.selection();
  REQUIRE(timeline->selectionState() == selection);
  const auto& rows = timeline->data().rows;
  const auto model =
      std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.name == QStringLiteral("model"); });
  REQUIRE(model != rows.end());
  const int modelRow = static_cast<int>(model - rows.begin());

  // A section call on the timeline (call 4: section_id 4 % 3 = 1) outlines section 1 in the graph.
  timeline->selectSlice({modelRow, 4});
  CHECK(selection->section() == 1);
  CHECK(window.graphView()->highlightedSection() == 1);
  // The selection, set from anywhere (the schedule, a script), drives the graph too.
  selection->selectSection(2);
  CHECK(window.graphView()->highlightedSection() == 2);
  // A slice with no section (the "layers" row's parent) clears it.
  const auto layers =
      std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.name == QStringLiteral("layers"); });
  REQUIRE(layers != rows.end());
  timeline->selectSlice({static_cast<int>(layers - rows.begin()), 0});
  CHECK(selection->section() == -1);
  CHECK(window.graphView()->highlightedSection() == -1);
  // A node picked in the graph selects its section (layer2/matmul is in s1, hypersection hs0).
  window.graphView()->selectNode(2);
  CHECK(selection->section() == window.graphView()->nodeDetails(2).section);
  CHECK(selection->section() >= 0);
  CHECK(window.graphView()->highlightedSection() == selection->section());

  // A range selected on the timeline lands in the shared state and its table below.
  timeline->selectRange(1000.0, 1100.0);
  REQUIRE(selection->timeRange());
  CHECK(selection->timeRange()->startUs == 1000.0);
  CHECK(qobject_cast<QStackedWidget*>(window.rangePanel()->parentWidget())->currentWidget() == window.rangePanel());
  CHECK(window.rangePanel()->model()->rowCount() > 0);
  CHECK(window.rangePanel()->model()->summary().startUs == 1000.0);
}
