// The main window's screens: each renders something, the menus carry the
// shortcuts, export writes the report, and the German translation applies.
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>
#include <cstdio>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "Translations.h"
#include "compare/ComparePanel.h"
#include "compare/CompareView.h"
#include "compile/CompilePanel.h"
#include "graph/GraphView.h"
#include "runs/RunsPanel.h"
#include "schedule/GanttStrip.h"
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

TEST_CASE("Every screen of the main window shows what was opened", "[gui][app]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow empty(scheduleLoaders(), QStringLiteral("-"));
  studio::MainWindow window(scheduleLoaders(), QStringLiteral("-"));
  for (studio::MainWindow* w : {&empty, &window}) {
    w->resize(1400, 900);
    w->show();
  }
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(window);
  window.openTrace(dir.filePath(QStringLiteral("run.json")));
  waitIdle(window);
  REQUIRE(window.schedulePanel()->data().sections.size() == 3);
  auto screen = [&window](studio::MainWindow& w, const QString& name) {
    REQUIRE(w.showScreen(name));
    QApplication::processEvents();
    const QImage image = w.tabs()->currentWidget()->grab().toImage();
    REQUIRE(!image.isNull());
    if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR") && &w == &window)
      image.save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/%1.png").arg(name));
    return image;
  };
  // Schedule: the Gantt strip paints each section in its colour (its
  // hypersection's, shared with the graph and timeline); the empty screen
  // has no such boxes.
  {
    const QImage loaded = screen(window, QStringLiteral("schedule"));
    const QImage none = screen(empty, QStringLiteral("schedule"));
    for (int section = 0; section < 3; ++section) {
      INFO("section " << section);
      const QRgb colour = window.schedulePanel()->gantt()->boxColor(section).rgb();
      CHECK(apptest::pixelCount(loaded, colour) > apptest::pixelCount(none, colour) + 500);
    }
  }
  // Graph & Timeline: the graph laid out, every operator on screen; the
  // timeline's rows drawn where the empty one has none.
  {
    const QImage loaded = screen(window, QStringLiteral("graph"));
    CHECK(window.graphView()->hasLayout());
    CHECK(window.graphView()->operatorsOnScreen() >= 5);  // the tiny model's 5 operators at least
    const QImage timeline = window.timelineView()->grab().toImage();
    screen(empty, QStringLiteral("graph"));
    const QImage blank = empty.timelineView()->grab().toImage();
    CHECK(apptest::changedShare(timeline, blank) > 0.02);
  }
  // Compile, Runs and Compare show their controls (opening a PEF changes none of them).
  screen(window, QStringLiteral("compile"));
  int inputs = 0;
  for (QWidget* w : window.compilePanel()->findChildren<QWidget*>())
    inputs += w->isVisible() && (qobject_cast<QLineEdit*>(w) || qobject_cast<QComboBox*>(w) ||
                                 qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QCheckBox*>(w));
  CHECK(inputs >= 8);
  screen(window, QStringLiteral("runs"));
  CHECK(window.runsPanel()->table()->isVisible());
  CHECK(window.runsPanel()->table()->horizontalHeader()->count() >= 6);
  screen(window, QStringLiteral("compare"));
  CHECK(window.comparePanel()->compareView()->isVisible());
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

TEST_CASE("A German locale finds the German translation the way dfstudio loads it", "[gui][app][i18n]") {
  guitest::ensureApp();
  {
    // de_DE: no dfstudio_de_DE.qm, so the lookup falls back to dfstudio_de.qm.
    const studio::Translations german(QLocale(QStringLiteral("de_DE")));
    REQUIRE(german.appTranslated());
    studio::MainWindow window(scheduleLoaders(), QStringLiteral("-"));
    const QStringList titles = menuTitles(window);
    CHECK(titles.contains(QStringLiteral("&Datei")));
    CHECK(titles.contains(QStringLiteral("&Hilfe")));
    CHECK(window.tabs()->tabText(0) == QStringLiteral("&Kompilieren"));
  }
  {
    const studio::Translations french(QLocale(QStringLiteral("fr_FR")));  // no French: English stays
    CHECK(!french.appTranslated());
    studio::MainWindow window(scheduleLoaders(), QStringLiteral("-"));
    CHECK(menuTitles(window).contains(QStringLiteral("&File")));
  }
  studio::MainWindow english(scheduleLoaders(), QStringLiteral("-"));  // the German one was removed with its owner
  CHECK(menuTitles(english).contains(QStringLiteral("&File")));
}

TEST_CASE("dfstudio speaks German when the system locale is German", "[gui][app][i18n]") {
  // The binary as a user starts it: the locale comes from the environment.
  auto help = [](const char* lang) {
    const QString cmd = QStringLiteral("env LC_ALL=%1 LANG=%1 LANGUAGE= QT_QPA_PLATFORM=offscreen %2/app/dfstudio/dfstudio --help 2>&1")
                            .arg(QString::fromLatin1(lang), QStringLiteral(DFC_BINARY_DIR));
    QString out;
    FILE* pipe = popen(cmd.toLocal8Bit().constData(), "r");
    REQUIRE(pipe);
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out += QString::fromUtf8(buf, static_cast<qsizetype>(n));
    CHECK(pclose(pipe) == 0);
    return out;
  };
  CHECK(help("de_DE.UTF-8").contains(QStringLiteral("Kompiliert Modelle")));
  const QString english = help("C");
  CHECK(english.contains(QStringLiteral("Compiles and runs models")));
  CHECK(!english.contains(QStringLiteral("Kompiliert")));
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
  QSignalSpy loaded(window.comparePanel(), &views::ComparePanel::sideLoaded);
  window.comparePanel()->loadSide(0, dir.filePath(QStringLiteral("a.pef")));
  window.comparePanel()->loadSide(1, dir.filePath(QStringLiteral("b.pef")));
  for (int i = 0; i < 100 && loaded.count() < 2; ++i) loaded.wait(100);
  REQUIRE(loaded.count() == 2);
  REQUIRE(window.comparePanel()->compareView()->summary().has_value());
  CHECK(window.comparePanel()->compareView()->timeline(0)->data().sliceCount == guitest::kModelSlices + 5);
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    QTest::qWait(500);  // graph layouts
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/compare-loaded.png"));
  }
}

