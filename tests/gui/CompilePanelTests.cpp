#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "Session.h"
#include "SessionBinding.h"
#include "compile/CompilePanel.h"

using namespace dfc;

namespace {

// The Compile screen as the app wires it: the form asks, the Session works.
struct BoundPanel {
  studio::Session session;
  views::CompilePanel panel;
  BoundPanel() { studio::bindCompilePanel(&session, &panel); }
};

}  // namespace

TEST_CASE("Compile screen compiles a zoo model through the form", "[gui][compile]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  BoundPanel bound;
  views::CompilePanel& panel = bound.panel;
  panel.setDbPath(QStringLiteral("-"));
  panel.show();
  panel.modelBox()->setCurrentText(QStringLiteral("logreg"));
  panel.outputFolderEdit()->setText(dir.filePath(QStringLiteral("out")));
  panel.optLevelBox()->setCurrentIndex(0);  // o0
  QSignalSpy done(&bound.session, &studio::Session::compileFinished);
  QTest::mouseClick(panel.compileButton(), Qt::LeftButton);
  CHECK(!panel.compileButton()->isEnabled());  // no second compile while one runs
  CHECK(panel.cancelButton()->isEnabled());
  REQUIRE(done.wait(60000));
  INFO(done.at(0).at(2).toString().toStdString());
  REQUIRE(done.at(0).at(0).toBool());
  const QString pef = done.at(0).at(1).toString();
  CHECK(QFileInfo::exists(pef));
  CHECK(pef.startsWith(dir.path()));
  CHECK(panel.runPefEdit()->text() == pef);  // ready to Run
  CHECK(panel.compileButton()->isEnabled());
  CHECK(panel.progressBar()->value() == panel.progressBar()->maximum());
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("--- compile logreg")));  // the Session's own line

  // Run it (a few samples): the runtime's lines reach the log, the trace is written.
  panel.trainLimitBox()->setValue(64);
  panel.testLimitBox()->setValue(64);
  QSignalSpy ran(&bound.session, &studio::Session::runFinished);
  QTest::mouseClick(panel.runButton(), Qt::LeftButton);
  REQUIRE(ran.wait(120000));
  INFO(ran.at(0).at(2).toString().toStdString());
  REQUIRE(ran.at(0).at(0).toBool());
  CHECK(QFileInfo::exists(ran.at(0).at(1).toString()));
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("--- run")));
  // The runtime's progress lines come through the job, ahead of its result.
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("Epoch [1/1]")));
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    panel.experimentalToggle()->setChecked(true);
    panel.resize(1400, 850);
    panel.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/compile-after-run.png"));
  }
}

TEST_CASE("Compile screen names what is wrong with a bad model", "[gui][compile]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  BoundPanel bound;
  views::CompilePanel& panel = bound.panel;
  panel.setDbPath(QStringLiteral("-"));
  panel.modelBox()->setCurrentText(QStringLiteral("no_such_model"));
  panel.outputFolderEdit()->setText(dir.path());
  QSignalSpy done(&bound.session, &studio::Session::compileFinished);
  panel.requestCompile();
  REQUIRE(done.wait(60000));
  CHECK(!done.at(0).at(0).toBool());
  CHECK(done.at(0).at(2).toString().contains(QStringLiteral("no_such_model")));
  CHECK(panel.compileButton()->isEnabled());
}

TEST_CASE("Compile screen hides experimental options until asked", "[gui][compile]") {
  guitest::ensureApp();
  views::CompilePanel panel;
  panel.show();
  QWidget* group = nullptr;
  for (auto* box : panel.findChildren<QCheckBox*>())
    if (box->text().contains(QStringLiteral("Dump the IR"))) group = box;
  REQUIRE(group);
  CHECK(!group->isVisible());
  panel.experimentalToggle()->setChecked(true);
  CHECK(group->isVisible());
  CHECK(panel.compileOptions().batchSize == 32);
  CHECK(panel.compileOptions().level == partition::OptLevel::O3);
}

TEST_CASE("Running without a PEF says so instead of starting", "[gui][compile]") {
  guitest::ensureApp();
  BoundPanel bound;
  views::CompilePanel& panel = bound.panel;
  panel.setDbPath(QStringLiteral("-"));
  QSignalSpy busy(&bound.session, &studio::Session::busyChanged);
  panel.requestRun();
  CHECK(busy.isEmpty());
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("Compile a model first")));
}

TEST_CASE("Model parameters parse as name=integer and name the bad entry", "[gui][compile]") {
  auto ok = views::CompilePanel::parseModelParams(QStringLiteral("num_layers=2, hidden_size=64"));
  REQUIRE(ok);
  CHECK(ok->at("num_layers") == 2);
  CHECK(ok->at("hidden_size") == 64);
  CHECK(views::CompilePanel::parseModelParams(QString())->empty());
  auto bad = views::CompilePanel::parseModelParams(QStringLiteral("num_layers=2 heads"));
  REQUIRE(!bad);
  CHECK(bad.error().message().find("'heads'") != std::string::npos);
}
