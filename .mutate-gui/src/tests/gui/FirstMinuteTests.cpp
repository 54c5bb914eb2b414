// The first minute with dfstudio: each kind of file opens on the screen it
// belongs to, the Compile form shows the open PEF's settings, an empty pane
// gives way to the one with something in it, and nothing happens silently
// (an overlay without its data is disabled and says why, a CSV leaves
// missing measurements blank, a new PEF drops the old selection).
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "compile/CompilePanel.h"
#include "driver/compile/Compiler.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "profile/ChromeTrace.h"
#include "timeline/TimelinePanel.h"
#include "timeline/TimelineView.h"

using namespace dfc;

namespace {

void waitIdle(studio::MainWindow& window) {
  QSignalSpy idle(&window, &studio::MainWindow::idle);
  for (int i = 0; i < 300 && (window.isBusy() || idle.isEmpty()); ++i) idle.wait(100);
  REQUIRE(!window.isBusy());
}

studio::MainWindow::Screen currentScreen(const studio::MainWindow& window) {
  return static_cast<studio::MainWindow::Screen>(window.tabs()->currentIndex());
}

// Synthetic PEF and trace (apptest), no run store: what the window needs without files.
studio::DocumentLoaders fakeLoaders(bool measured) {
  studio::DocumentLoaders loaders;
  loaders.readPef = [](const std::string&) -> Expected<pef::Pef> { return apptest::makePef(); };
  loaders.readTrace = [](const std::string&) -> Expected<profile::Trace> { return guitest::makeTrace(); };
  loaders.measuredSections = [measured](const std::string&, const std::string&) {
    return measured ? apptest::makeMeasured() : views::MeasuredSections{};
  };
  return loaders;
}

}  // namespace

TEST_CASE("A PEF opens on Graph and Timeline with its settings in the Compile form", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  driver::CompileOptions options;
  options.model = "gpt2-mini";
  options.level = partition::OptLevel::O1;
  options.o1RuleList = "default";  // the form names the rule list it compiles with
  options.arch = "sn10";
  options.batchSize = 8;
  options.modelParams = {{"num_layers", 1}, {"hidden_size", 32}};
  options.outputFolder = dir.filePath(QStringLiteral("g")).toStdString();
  options.dbPath = "-";
  options.args = options.toArgs();  // as dfc and the Session record it
  auto compiled = driver::compile(options);
  REQUIRE(compiled);

  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.showScreen(studio::MainWindow::Screen::Runs);
  window.openFile(QString::fromStdString(compiled->pefPath));
  waitIdle(window);
  CHECK(currentScreen(window) == studio::MainWindow::Screen::GraphTimeline);

  // The form holds what the PEF was compiled with, not the defaults (logreg? o3? native?).
  views::CompilePanel* form = window.compilePanel();
  CHECK(form->modelBox()->currentText() == QStringLiteral("gpt2-mini"));
  CHECK(form->optLevelBox()->currentData().toString() == QStringLiteral("o1"));
  CHECK(form->archBox()->currentText() == QStringLiteral("sn10"));
  CHECK(form->batchSizeBox()->value() == 8);
  CHECK(form->modelParamsEdit()->text() == QStringLiteral("hidden_size=32 num_layers=1"));
  CHECK(form->runPefEdit()->text() == QString::fromStdString(compiled->pefPath));
  auto again = form->compileOptions();  // ready to compile again: the same options
  REQUIRE(again);
  CHECK(again->toArgs() == options.toArgs());

  // No trace of it yet: the graph takes the width, a line says how to get a timeline.
  CHECK(window.graphPanel()->isVisible());
  CHECK_FALSE(window.timelinePanel()->isVisible());
  CHECK(window.paneHint()->isVisible());
  CHECK(window.paneHint()->text().contains(QStringLiteral("run it")));

  // A model file opens the Compile form with that model's own (default) settings.
  const QString model = dir.filePath(QStringLiteral("net.onnx"));
  window.openFile(model);
  CHECK(currentScreen(window) == studio::MainWindow::Screen::Compile);
  CHECK(form->modelBox()->currentText() == model);
  CHECK(form->optLevelBox()->currentData().toString() == QStringLiteral("o3"));
  CHECK(form->archBox()->currentText() == QStringLiteral("native"));
  CHECK(form->batchSizeBox()->value() == 32);
  CHECK(form->modelParamsEdit()->text().isEmpty());
}

TEST_CASE("A trace alone opens on Graph and Timeline with the timeline at full width", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.json"));
  REQUIRE(profile::writeChromeTrace(guitest::makeTrace(), trace.toStdString()));
  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.openFile(trace);
  waitIdle(window);
  CHECK(currentScreen(window) == studio::MainWindow::Screen::GraphTimeline);
  CHECK_FALSE(window.graphPanel()->isVisible());
  REQUIRE(window.timelinePanel()->isVisible());
  CHECK(window.timelinePanel()->width() >= window.paneSplitter()->width() - 10);
  CHECK(window.paneHint()->isVisible());
  CHECK(window.paneHint()->text().contains(QStringLiteral("open the PEF it ran")));
  // Nothing selected: the details pane is a thin strip; a clicked slice grows it.
  const int strip = window.detailsSplitter()->sizes().at(1);
  CHECK(strip < 50);
  window.timelineView()->selectSlice({0, 0});
  CHECK(window.detailsSplitter()->sizes().at(1) > strip + 40);
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR"))
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/trace-alone.png"));
}

TEST_CASE("An overlay without its data is disabled and says what is missing", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(fakeLoaders(false), QStringLiteral("-"));
  window.show();
  window.graphPanel()->setColorMode(views::GraphColorMode::MeasuredShare);  // asked for before a PEF: no data either
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(window);
  views::GraphPanel* pane = window.graphPanel();
  auto* items = qobject_cast<QStandardItemModel*>(pane->colorModeBox()->model());
  REQUIRE(items);
  for (auto mode : {views::GraphColorMode::MeasuredShare, views::GraphColorMode::MeasuredOverEstimate}) {
    const QStandardItem* item = items->item(pane->colorModeBox()->findData(static_cast<int>(mode)));
    CHECK_FALSE(item->isEnabled());
    CHECK(item->toolTip().contains(QStringLiteral("Needs a recorded run")));
  }
  for (auto mode : {views::GraphColorMode::Cost, views::GraphColorMode::PcuUse})
    CHECK(items->item(pane->colorModeBox()->findData(static_cast<int>(mode)))->isEnabled());
  // Asked for anyway (--color-by time-share): cost instead, and said so.
  QSignalSpy notices(pane, &views::GraphPanel::notice);
  pane->setColorMode(views::GraphColorMode::MeasuredShare);
  CHECK(window.graphView()->colorMode() == views::GraphColorMode::Cost);
  REQUIRE(notices.count() == 1);
  CHECK(notices.at(0).at(0).toString().contains(QStringLiteral("needs a recorded run")));
  // With a run the same modes are offered.
  studio::MainWindow ran(fakeLoaders(true), QStringLiteral("-"));
  ran.show();
  ran.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(ran);
  auto* ranItems = qobject_cast<QStandardItemModel*>(ran.graphPanel()->colorModeBox()->model());
  CHECK(
      ranItems->item(ran.graphPanel()->colorModeBox()->findData(static_cast<int>(views::GraphColorMode::MeasuredShare)))
          ->isEnabled());
  ran.graphPanel()->setColorMode(views::GraphColorMode::MeasuredShare);
  CHECK(ran.graphView()->colorMode() == views::GraphColorMode::MeasuredShare);
}

TEST_CASE("The exported section report leaves what was never measured blank", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(fakeLoaders(true), QStringLiteral("-"));
  window.openPef(dir.filePath(QStringLiteral("tiny.pef")));
  waitIdle(window);
  const QString csv = dir.filePath(QStringLiteral("report.csv"));
  REQUIRE(window.exportSectionReport(csv));
  QFile file(csv);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 4);
  const QStringList header = lines[0].split(QLatin1Char(','));
  const auto calls = header.indexOf(QStringLiteral("calls")), mean = header.indexOf(QStringLiteral("measured_mean_us"));
  REQUIRE(calls > 0);
  for (int row = 1; row <= 3; ++row) {
    const QStringList cells = lines[row].split(QLatin1Char(','));
    INFO(lines[row].toStdString());
    const bool run = cells[0] == QStringLiteral("1");  // apptest::makeMeasured(): section 1 alone was run
    CHECK(cells[calls].isEmpty() == !run);
    CHECK(cells[mean].isEmpty() == !run);
  }
}

TEST_CASE("A new PEF drops the selection made in the old one", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(fakeLoaders(true), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.showScreen(studio::MainWindow::Screen::GraphTimeline);
  window.openPef(dir.filePath(QStringLiteral("a.pef")));
  waitIdle(window);
  views::GraphView* graph = window.graphView();
  graph->selectNode(2);  // outlines its section, shows its details
  graph->findNodes(QStringLiteral("relu"));
  REQUIRE(graph->highlightedSection() >= 0);
  REQUIRE(!graph->highlightedNodes().isEmpty());
  REQUIRE(!window.detailsPane()->toPlainText().isEmpty());
  window.openPef(dir.filePath(QStringLiteral("b.pef")));
  waitIdle(window);
  CHECK(graph->highlightedSection() == -1);
  CHECK(graph->highlightedNodes().isEmpty());
  CHECK(window.detailsPane()->toPlainText().isEmpty());
  // Nor is any of it in an export.
  const QString png = dir.filePath(QStringLiteral("b.png"));
  REQUIRE(graph->exportPng(png));
  CHECK(apptest::pixelCount(QImage(png), 0xd02020) == 0);  // the section outline's red
  CHECK(apptest::pixelCount(QImage(png), 0xff8c00) == 0);  // a search match's orange
}

TEST_CASE("Node details name the fused attention its section runs, with its tiles", "[gui][app][first-minute]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  driver::CompileOptions options;
  options.model = "gpt2-mini";
  options.outputFolder = dir.filePath(QStringLiteral("g3")).toStdString();
  options.dbPath = "-";
  auto compiled = driver::compile(options);  // -o3: the forward and the backward section each hold both attentions
  REQUIRE(compiled);
  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  window.openFile(QString::fromStdString(compiled->pefPath));
  waitIdle(window);
  views::GraphView* graph = window.graphView();
  graph->expandAll();
  waitIdle(window);
  auto detailsOf = [&](const QString& name) {
    for (const auto& node : graph->graph().nodes)
      if (node.name == name) {
        graph->selectNode(node.id);
        return window.detailsPane()->toPlainText();
      }
    FAIL("no node " << name.toStdString());
    return QString();
  };
  const QString softmax = detailsOf(QStringLiteral("h.0/attn/softmax"));
  CHECK(softmax.contains(QStringLiteral("runs fused")));
  CHECK(softmax.contains(QStringLiteral("attention h.0/attn (forward, FlashAttention-style), 64x128 tiles")));
  CHECK(softmax.contains(QStringLiteral("attention h.1/attn (forward")));  // the section holds both layers'
  // The optimizer's section runs no attention.
  QString optimizerOp;
  for (const auto& node : graph->graph().nodes)
    if (node.role == QStringLiteral("optimizer") && node.kind == views::GraphNodeKind::Op) optimizerOp = node.name;
  REQUIRE(!optimizerOp.isEmpty());
  CHECK_FALSE(detailsOf(optimizerOp).contains(QStringLiteral("runs fused")));
}
