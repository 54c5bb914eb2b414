// Issue 38: a trace is linked to the graph only when it names the open PEF
// (its pef_hash is the PEF's content hash). A trace of another PEF is still
// shown, with a line saying whose it is, and a click on it selects nothing
// in the graph; changing the PEF clears what was selected.
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "selection/SelectionState.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

// Every PEF path opens apptest::makePef() with `pefHash`; its run's trace is
// guitest::makeTrace() naming `traceHash` (and the PEF file it ran).
studio::DocumentLoaders loaders(const std::string& tracePath, std::string pefHash, std::string traceHash) {
  studio::DocumentLoaders l;
  l.readPef = [pefHash](const std::string&) -> Expected<pef::Pef> {
    pef::Pef pef = apptest::makePef();
    pef.contentHash = pefHash;
    return pef;
  };
  l.readTrace = [traceHash](const std::string&) -> Expected<profile::Trace> {
    profile::Trace trace = guitest::makeTrace();
    trace.metadata["pef_hash"] = traceHash;
    trace.metadata["pef"] = "/runs/old/lenet_before.pef";
    return trace;
  };
  l.latestTraceForPef = [tracePath](const std::string&, const std::string&) { return tracePath; };
  return l;
}

void openAndWait(studio::MainWindow& window, const QString& pef) {
  window.show();
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  window.openPef(pef);
  for (int i = 0; i < 100 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
}

// The whole-model row's first slice: a call of section 0.
views::TimelineView::SliceRef firstCall(const views::TimelineView& view) {
  for (size_t r = 0; r < view.data().rows.size(); ++r)
    if (view.data().rows[r].tid == 0) return {static_cast<int>(r), 0};
  FAIL("no whole-model row");
  return {};
}

}  // namespace

TEST_CASE("a trace of another PEF is shown but not cross-linked, and says so", "[gui][app][pairing]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);
  studio::MainWindow window(loaders(trace.toStdString(), "1111111111111111", "2222222222222222"));
  openAndWait(window, dir.filePath(QStringLiteral("new.pef")));
  REQUIRE(!window.isBusy());
  auto* view = window.timelineView();
  CHECK(view->data().sliceCount > 0);  // shown
  CHECK_FALSE(view->isLinked());
  const QLabel* notice = window.timelinePanel()->notice();
  CHECK_FALSE(notice->isHidden());  // on its tab, which need not be the current one
  CHECK(notice->text().contains(QStringLiteral("lenet_before.pef")));
  CHECK(notice->text().contains(QStringLiteral("not the open one")));
  CHECK(notice->text().contains(QStringLiteral("2222222222222222")));
  view->selectSlice(firstCall(*view));
  CHECK(window.selection()->section() == -1);  // the click names a section of another plan: nothing is outlined
}

TEST_CASE("a trace of the open PEF is linked, and a new PEF clears the selections", "[gui][app][pairing]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);
  studio::MainWindow window(loaders(trace.toStdString(), "1111111111111111", "1111111111111111"));
  openAndWait(window, dir.filePath(QStringLiteral("same.pef")));
  REQUIRE(!window.isBusy());
  auto* view = window.timelineView();
  CHECK(view->isLinked());
  CHECK(window.timelinePanel()->notice()->isHidden());
  view->selectSlice(firstCall(*view));
  CHECK(window.selection()->section() == 0);
  view->selectRange(1000, 1100);
  REQUIRE(window.selection()->timeRange());
  // Another PEF opens (here without a run): what was picked in the old one is gone.
  window.openPef(dir.filePath(QStringLiteral("other.pef")));
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  for (int i = 0; i < 100 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
  CHECK(window.selection()->section() == -1);
  CHECK_FALSE(window.selection()->timeRange());
}

TEST_CASE("a trace that names no PEF is not linked to the open one", "[gui][app][pairing]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);
  studio::MainWindow window(loaders(trace.toStdString(), "1111111111111111", ""));
  openAndWait(window, dir.filePath(QStringLiteral("a.pef")));
  CHECK_FALSE(window.timelineView()->isLinked());
  CHECK(window.timelinePanel()->notice()->text().contains(QStringLiteral("does not name the PEF")));
}
