// Steering from the Graph screen: nodes picked in the graph and an action
// from its context menu make the decisions file; "Recompile with decisions"
// compiles again honouring it and opens both compiles side by side.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "DecisionsController.h"
#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "compare/ComparePanel.h"
#include "compare/CompareSummary.h"
#include "compare/CompareView.h"
#include "driver/compile/Compiler.h"
#include "graph/GraphView.h"
#include "pef/Pef.h"
#include "schedule/ScheduleData.h"

using namespace dfc;

namespace {

int graphNode(const views::GraphView* view, const char* name) {
  for (const auto& node : view->graph().nodes)
    if (node.name == QLatin1String(name)) return node.id;
  FAIL(std::string("no graph node ") + name);
  return -1;
}

// A real Ctrl+click on the node (scrolled into view first).
void ctrlClick(views::GraphView* view, int node) {
  const QRectF rect = view->currentLayout().nodeRects.at(static_cast<size_t>(node));
  view->centerOn(rect.center());
  QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier, view->mapFromScene(rect.center()));
}

void trigger(QMenu* menu, const char* name) {
  auto* action = menu->findChild<QAction*>(QLatin1String(name));
  REQUIRE(action);
  REQUIRE(action->isEnabled());
  action->trigger();
  delete menu;
}

const partition::Section& sectionHolding(const pef::Pef& p, const char* node) {
  const ir::NodeId id = p.graph.findNode(node);
  for (const auto& s : p.plan.sections)
    if (std::find(s.nodes.begin(), s.nodes.end(), id) != s.nodes.end()) return s;
  FAIL(std::string("no section holds ") + node);
  return p.plan.sections.front();
}

}  // namespace

TEST_CASE("Picked graph nodes and the context menu make a decisions file that a recompile honours",
          "[gui][app][decisions]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  driver::CompileOptions options;
  options.model = "lenet";
  options.level = partition::OptLevel::O0;
  options.batchSize = 4;
  options.outputFolder = dir.filePath(QStringLiteral("lenet")).toStdString();
  options.dbPath = "-";
  options.args = options.toArgs();  // as dfc and the Session record it
  auto compiled = driver::compile(options);
  REQUIRE(compiled);

  studio::MainWindow window(studio::engineLoaders(), QStringLiteral("-"));
  window.resize(1400, 900);
  window.show();
  views::GraphView* view = window.graphView();
  QSignalSpy shown(view, &views::GraphView::layoutShown);
  window.showScreen(studio::MainWindow::Screen::GraphTimeline);
  window.openPef(QString::fromStdString(compiled->pefPath));
  REQUIRE((shown.count() > 0 || shown.wait(60000)));
  REQUIRE(view->hasLayout());
  if (view->graph().collapsed) {  // opened folded to be readable: show every op
    shown.clear();
    view->expandAll();
    REQUIRE((shown.count() > 0 || shown.wait(60000)));
  }

  // Ctrl+click three ops of conv1; "Put in one section" groups them.
  for (const char* name : {"conv1/conv2d", "conv1/bias_add", "conv1/relu"}) ctrlClick(view, graphNode(view, name));
  REQUIRE(view->highlightedNodes().size() == 3);
  studio::DecisionsController* decisions = window.decisions();
  trigger(decisions->buildMenu(-1, &window), "decisionTogether");
  // A right-click on a node outside the pick applies to that node alone: cut before fc1/matmul.
  trigger(decisions->buildMenu(graphNode(view, "fc1/matmul"), &window), "decisionCut");

  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {  // the menu as a person sees it
    QMenu* menu = decisions->buildMenu(graphNode(view, "conv2/conv2d"), &window);
    menu->grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/decisions_menu.png"));
    delete menu;
  }
  const QString file = dir.filePath(QStringLiteral("mine.yaml"));
  REQUIRE(decisions->save(file));
  auto saved = mapping::loadDecisions(file.toStdString());
  REQUIRE(saved.ok());
  REQUIRE(saved->decisions.size() == 2);
  CHECK(saved->decisions[0].kind == mapping::DecisionKind::Together);
  CHECK(saved->decisions[0].patterns == std::vector<std::string>{"conv1/conv2d", "conv1/bias_add", "conv1/relu"});
  CHECK(saved->decisions[0].role == ir::NodeRole::Forward);
  CHECK(saved->decisions[1].kind == mapping::DecisionKind::CutBefore);
  CHECK(saved->decisions[1].patterns == std::vector<std::string>{"fc1/matmul"});

  // Pending decisions carry a badge on their nodes (and say so in the tooltip), others none.
  for (const char* name : {"conv1/conv2d", "conv1/relu", "fc1/matmul"}) CHECK(view->isMarked(graphNode(view, name)));
  CHECK_FALSE(view->isMarked(graphNode(view, "conv2/conv2d")));
  view->centerOn(view->currentLayout().nodeRects.at(static_cast<size_t>(graphNode(view, "fc1/matmul"))).center());
  QApplication::processEvents();
  CHECK(apptest::pixelCount(view->viewport()->grab().toImage(), 0xe8590c) > 10);
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {  // the badges, and the dialog a recompile asks with
    const QString shots = qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR");
    window.grab().save(shots + QStringLiteral("/decisions_badges.png"));
    studio::RecompileDialog dialog(decisions->suggestedTargets(), static_cast<int>(decisions->draft().decisions.size()), &window);
    dialog.grab().save(shots + QStringLiteral("/decisions_dialog.png"));
  }

  // Exports leave the selection out (picked nodes' orange border, badges) unless asked.
  const QString plain = dir.filePath(QStringLiteral("plain.png")), marked = dir.filePath(QStringLiteral("marked.png"));
  REQUIRE(view->exportPng(plain));
  window.exportSelectionAction()->setChecked(true);
  REQUIRE(view->exportPng(marked));
  window.exportSelectionAction()->setChecked(false);
  CHECK(apptest::pixelCount(QImage(plain), 0xe8590c) == 0);
  CHECK(apptest::pixelCount(QImage(plain), 0xff8c00) == 0);
  CHECK(apptest::pixelCount(QImage(marked), 0xe8590c) > 10);
  CHECK(apptest::pixelCount(QImage(marked), 0xff8c00) > 10);
  CHECK(view->highlightedNodes().size() == 3);  // the selection on screen is kept

  // Recompile asks where the decisions file and the new PEF go (here: answered without the dialog).
  QSignalSpy ready(decisions, &studio::DecisionsController::compareReady);
  QSignalSpy sides(window.comparePanel(), &views::ComparePanel::sideLoaded);
  QSignalSpy laidOut(window.comparePanel()->compareView(), &views::CompareView::layoutDone);
  studio::RecompileTargets asked;
  const studio::RecompileTargets chosen{dir.filePath(QStringLiteral("chosen/lenet_decisions.yaml")),
                                        dir.filePath(QStringLiteral("built/lenet_decided/lenet_decided.pef"))};
  QDir(dir.path()).mkpath(QStringLiteral("chosen"));
  decisions->setTargetChooser([&](const studio::RecompileTargets& suggested) {
    asked = suggested;
    return std::optional<studio::RecompileTargets>(chosen);
  });
  REQUIRE(decisions->recompile());
  CHECK(asked.decisionsPath.endsWith(QStringLiteral("lenet_decisions.yaml")));
  CHECK(asked.pefPath.endsWith(QStringLiteral("lenet_decided/lenet_decided.pef")));
  CHECK(QFile::exists(chosen.decisionsPath));
  // Nothing written beside the source PEF without asking.
  CHECK_FALSE(QFile::exists(QFileInfo(QString::fromStdString(compiled->pefPath)).dir().filePath(QStringLiteral("lenet_decisions.yaml"))));
  // The folders chosen are remembered for the next recompile.
  CHECK(QFileInfo(decisions->suggestedTargets().decisionsPath).absolutePath() == QFileInfo(chosen.decisionsPath).absolutePath());
  CHECK(QFileInfo(decisions->suggestedTargets().pefPath).absolutePath() == QFileInfo(chosen.pefPath).absolutePath());
  REQUIRE((ready.count() > 0 || ready.wait(180000)));
  const QString after = ready.first().at(1).toString();
  CHECK(QFileInfo(after) == QFileInfo(chosen.pefPath));
  CHECK(ready.first().at(0).toString() == QString::fromStdString(compiled->pefPath));
  auto decided = pef::readPef(after.toStdString());
  REQUIRE(decided.ok());
  CHECK(decided->meta.pefName == "lenet_decided");
  CHECK(sectionHolding(*decided, "conv1/conv2d").nodes.size() == 3);
  CHECK(sectionHolding(*decided, "conv1/relu").id == sectionHolding(*decided, "conv1/conv2d").id);
  CHECK(sectionHolding(*decided, "fc1/matmul").nodes.front() == decided->graph.findNode("fc1/matmul"));
  CHECK(decided->meta.decisions.find("lenet_decisions.yaml") != std::string::npos);
  // The decision edited here is the recorded reason its cut has, in the Schedule's "why" column too.
  const partition::Section& cut = sectionHolding(*decided, "fc1/matmul");
  CHECK(cut.cut.kind == partition::CutKind::Decision);
  CHECK(cut.cut.detail.find("fc1/matmul") != std::string::npos);
  const views::ScheduleData decidedSchedule = views::buildScheduleData(*decided, {});
  REQUIRE(decidedSchedule.section(cut.id) != nullptr);
  CHECK(decidedSchedule.section(cut.id)->whyWithKind.startsWith(QStringLiteral("decision: ")));
  while (sides.count() < 2 && sides.wait(60000)) {
  }
  CHECK(sides.count() >= 2);
  CHECK(window.tabs()->currentIndex() == static_cast<int>(studio::MainWindow::Screen::Compare));
  CHECK(views::summarizeSide(*decided, nullptr).label == QStringLiteral("lenet -o0 (sn30), with decisions"));
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    // The picture shows the graph diff laid out, not "Layout in progress".
    while (laidOut.count() < 1 && laidOut.wait(30000)) {
    }
    QTest::qWait(100);
    window.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/decisions_compare.png"));
  }
}
