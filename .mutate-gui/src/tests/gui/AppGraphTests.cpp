// The Graph & Timeline screen on a real compile: folding, details, search.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "Session.h"
#include "compile/CompilePanel.h"
#include "driver/compile/Compiler.h"
#include "graph/GraphLegend.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"

using namespace dfc;

namespace {

// Waits until the window is idle and the graph shows a layout.
bool waitForLayout(studio::MainWindow& window, QSignalSpy& shown, int timeoutMs = 60000) {
  if (shown.isEmpty() && !shown.wait(timeoutMs)) return false;
  return window.graphView()->hasLayout() && !window.graphView()->isLayoutPending();
}

}  // namespace

TEST_CASE("Graph screen opens a gpt2-mini training PEF folded by hyperfunction and unfolds one", "[gui][app][graph]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  driver::CompileOptions options;
  options.model = "gpt2-mini";
  options.level = partition::OptLevel::O0;
  options.outputFolder = dir.path().toStdString();
  options.dbPath = "-";
  auto compiled = driver::compile(options);
  REQUIRE(compiled);

  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  views::GraphView* view = window.graphView();
  QSignalSpy shown(view, &views::GraphView::layoutShown);
  window.showScreen(studio::MainWindow::Screen::GraphTimeline);
  window.openPef(QString::fromStdString(compiled->pefPath));
  REQUIRE(waitForLayout(window, shown));

  // The training graph opens with its hyperfunctions folded into single nodes.
  REQUIRE_FALSE(view->graph().collapsedScopes.empty());
  const QString scope = *view->graph().collapsedScopes.begin();
  CHECK(view->isCollapsed(scope));
  const size_t foldedCount = view->graph().nodes.size();

  // Folded, it colours by cost (each layer striped by the hypersections in it); the legend follows the selector.
  views::GraphPanel* pane = window.graphPanel();
  CHECK(view->colorMode() == views::GraphColorMode::Cost);
  pane->colorModeBox()->setCurrentIndex(pane->colorModeBox()->findData(static_cast<int>(views::GraphColorMode::OpType)));
  CHECK(view->colorMode() == views::GraphColorMode::OpType);
  pane->colorModeBox()->setCurrentIndex(pane->colorModeBox()->findData(static_cast<int>(views::GraphColorMode::Hyperfunction)));
  CHECK(view->colorMode() == views::GraphColorMode::Hyperfunction);
  CHECK(pane->legend()->count() > 1);

  // Clicking the folded node shows its details with the plan's estimates.
  int folded = -1;
  for (const auto& node : view->graph().nodes)
    if (node.kind == views::GraphNodeKind::Collapsed && node.hyperfunction == scope) folded = node.id;
  REQUIRE(folded >= 0);
  view->selectNode(folded);
  const QString details = window.detailsPane()->toPlainText();
  CHECK(details.contains(scope));
  CHECK(details.contains(QStringLiteral("est. PCUs")));
  CHECK(details.contains(QStringLiteral("hypersection")));
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR"))
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/graph-details.png"));

  shown.clear();
  view->expand(scope);
  REQUIRE(waitForLayout(window, shown));
  CHECK_FALSE(view->isCollapsed(scope));
  CHECK(view->graph().nodes.size() > foldedCount);

  shown.clear();
  view->collapse(scope);
  REQUIRE(waitForLayout(window, shown));
  CHECK(view->isCollapsed(scope));
  CHECK(view->graph().nodes.size() == foldedCount);

  // Search finds ops inside folded hyperfunctions; Ctrl+F focuses the box.
  window.showScreen(studio::MainWindow::Screen::Compile);
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
  CHECK(window.tabs()->currentIndex() == static_cast<int>(studio::MainWindow::Screen::GraphTimeline));
  CHECK(QApplication::focusWidget() == pane->searchBox());
  QTest::keyClicks(pane->searchBox(), QStringLiteral("matmul"));
  CHECK(pane->searchBox()->text() == QStringLiteral("matmul"));
  CHECK_FALSE(view->findNodes(QStringLiteral("matmul")).isEmpty());
}

TEST_CASE("File > Open Model puts an ONNX file into the Compile form, which compiles it", "[gui][app][compile]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.show();
  window.showScreen(studio::MainWindow::Screen::Runs);
  const QString model = QStringLiteral(DFC_TEST_DATA_DIR "/onnx/torch/depthwise_net/model.onnx");
  window.openFile(model);  // what File > Open Model does once a file is picked
  views::CompilePanel* form = window.compilePanel();
  CHECK(window.tabs()->currentIndex() == static_cast<int>(studio::MainWindow::Screen::Compile));
  CHECK(form->modelBox()->currentText() == QDir::toNativeSeparators(model));

  form->inferenceBox()->setChecked(true);
  form->outputFolderEdit()->setText(dir.filePath(QStringLiteral("out")));
  form->optLevelBox()->setCurrentIndex(0);  // o0
  QSignalSpy done(window.session(), &studio::Session::compileFinished);
  QSignalSpy shown(window.graphView(), &views::GraphView::layoutShown);
  QTest::mouseClick(form->compileButton(), Qt::LeftButton);
  REQUIRE(done.wait(60000));
  INFO(done.at(0).at(2).toString().toStdString());
  REQUIRE(done.at(0).at(0).toBool());
  CHECK(QFileInfo(done.at(0).at(1).toString()).fileName() == QStringLiteral("model.pef"));
  // The fresh PEF opens into the graph, which is shown: the depthwise convolutions are there.
  REQUIRE(waitForLayout(window, shown));
  CHECK(window.pefPath() == done.at(0).at(1).toString());
  CHECK(window.tabs()->currentIndex() == static_cast<int>(studio::MainWindow::Screen::GraphTimeline));
  CHECK_FALSE(window.graphView()->findNodes(QStringLiteral("conv")).isEmpty());
}
