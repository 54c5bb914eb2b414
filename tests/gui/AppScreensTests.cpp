// The main window's screens: each renders something, the menus carry the
// shortcuts, export writes the report, and the German translation applies.
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "ComparePage.h"
#include "MainWindow.h"
#include "compare/CompareView.h"
#include "graph/GraphView.h"
#include "schedule/SchedulePanel.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

studio::DocumentLoaders scheduleLoaders() {
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> { return apptest::makePef(); };
  loaders.readTrace = [](const std::string&) -> Expected<profile::Trace> { return guitest::makeTrace(); };
  loaders.measuredSections = [](const std::string&, const std::string&) { return apptest::makeMeasured(); };
  return loaders;
}

void waitIdle(studio::MainWindow& window) {
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  for (int i = 0; i < 100 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
  REQUIRE(!window.isBusy());
}

QStringList menuTitles(const QMainWindow& window) {
  QStringList titles;
  for (QAction* a : window.menuBar()->actions()) titles << a->text();
  return titles;
}

}  // namespace

TEST_CASE("Every screen of the main window renders something", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(scheduleLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(window);
  window.openTrace(dir.filePath(QStringLiteral("run.json")));
  waitIdle(window);
  REQUIRE(window.schedulePanel()->data().sections.size() == 3);
  for (const QString& name : studio::MainWindow::screenNames()) {
    INFO(name.toStdString());
    REQUIRE(window.showScreen(name));
    QApplication::processEvents();
    const QImage image = window.tabs()->currentWidget()->grab().toImage();
    REQUIRE(!image.isNull());
    CHECK(apptest::colourCount(image) > 20);
    if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR"))
      image.save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/%1.png").arg(name));
  }
  CHECK(!window.showScreen(QStringLiteral("nonsense")));
}

TEST_CASE("Main window has shortcuts for the common actions and exports the section report", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(scheduleLoaders(), QStringLiteral("-"));
  QString error;
  CHECK(!window.exportSectionReport(dir.filePath(QStringLiteral("none.csv")), &error));  // nothing loaded yet
  CHECK(error.contains(QStringLiteral("No PEF")));
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(window);
  QStringList shortcuts;
  for (QAction* a : window.findChildren<QAction*>()) shortcuts << a->shortcut().toString();
  for (const char* key : {"Ctrl+O", "Ctrl+T", "Ctrl+B", "Ctrl+R", "Ctrl+Q"}) {
    INFO(key);
    CHECK(shortcuts.contains(QString::fromLatin1(key)));
  }
  const QString csv = dir.filePath(QStringLiteral("section_report.csv"));
  REQUIRE(window.exportSectionReport(csv));
  QFile file(csv);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(file.readAll());
  CHECK(text.startsWith(QStringLiteral("section_id,name,type")));
  CHECK(text.count(QLatin1Char('\n')) == 4);
}

TEST_CASE("With the German translation installed the menus are German", "[gui][app][i18n]") {
  guitest::ensureApp();
  QTranslator translator;
  REQUIRE(translator.load(QStringLiteral(":/i18n/dfstudio_de.qm")));
  QApplication::installTranslator(&translator);
  studio::MainWindow german(scheduleLoaders(), QStringLiteral("-"));
  const QStringList titles = menuTitles(german);
  QApplication::removeTranslator(&translator);
  CHECK(titles.contains(QStringLiteral("&Datei")));
  CHECK(titles.contains(QStringLiteral("&Hilfe")));
  CHECK(german.tabs()->tabText(0) == QStringLiteral("&Kompilieren"));
  studio::MainWindow english(scheduleLoaders(), QStringLiteral("-"));
  CHECK(menuTitles(english).contains(QStringLiteral("&File")));
}

TEST_CASE("Compare screen loads a PEF and its run on each side and summarises them", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::DocumentLoaders loaders = scheduleLoaders();
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  QFile(trace).open(QIODevice::WriteOnly);  // the store's trace path must exist
  loaders.latestTraceForPef = [trace](const std::string&, const std::string&) { return trace.toStdString(); };
  studio::MainWindow window(loaders, QStringLiteral("-"));
  window.show();
  window.showScreen(studio::MainWindow::Screen::Compare);
  QSignalSpy loaded(window.comparePage(), &studio::ComparePage::sideLoaded);
  window.comparePage()->loadSide(0, dir.filePath(QStringLiteral("a.pef")));
  window.comparePage()->loadSide(1, dir.filePath(QStringLiteral("b.pef")));
  for (int i = 0; i < 100 && loaded.count() < 2; ++i) loaded.wait(100);
  REQUIRE(loaded.count() == 2);
  REQUIRE(window.comparePage()->compareView()->summary().has_value());
  CHECK(window.comparePage()->compareView()->timeline(0)->data().sliceCount == guitest::kModelSlices + 5);
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    QTest::qWait(500);  // graph layouts
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/compare-loaded.png"));
  }
}
