#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <catch2/catch.hpp>
#include <set>

#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "graph/GraphView.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

studio::DocumentLoaders fakeLoaders(const std::string& tracePath) {
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> {
    pef::Pef pef;
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

}  // namespace

TEST_CASE("MainWindow opens a PEF, finds its run's trace and shows both", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);  // the store's trace path must exist
  studio::MainWindow window(fakeLoaders(trace.toStdString()));
  window.show();
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  for (int i = 0; i < 100 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
  REQUIRE(!window.isBusy());
  CHECK(window.graphView()->hasLayout());
  CHECK(window.timelineView()->data().sliceCount == guitest::kModelSlices + 5);
  CHECK(window.windowTitle().contains(QStringLiteral("tiny")));

  const QImage image = window.grab().toImage();
  REQUIRE(!image.isNull());
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3) {
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  }
  CHECK(colours.size() > 20);
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
  CHECK(!window.isBusy());
  window.openFile(QStringLiteral("/nowhere/trace.json"));  // no trace reader: error, no crash
  REQUIRE(failed.wait(5000));
}
