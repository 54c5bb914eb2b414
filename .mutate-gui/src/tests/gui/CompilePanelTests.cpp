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

TEST_CASE("Compile screen records dfc's command line and refuses bad options before starting", "[gui][compile]") {
  guitest::ensureApp();
  BoundPanel bound;
  views::CompilePanel& panel = bound.panel;
  panel.setDbPath(QStringLiteral("-"));
  panel.modelBox()->setCurrentText(QStringLiteral("gpt2-mini"));
  panel.modelParamsEdit()->setText(QStringLiteral("num_layers=3"));
  panel.batchSizeBox()->setValue(8);
  auto options = panel.compileOptions();
  REQUIRE(options.ok());
  const std::vector<std::string> args = studio::Session::compileArgs(*options);
  CHECK(args == options->toArgs());
  std::string line;
  for (const std::string& a : args) line += a + " ";
  CHECK(line.starts_with("dfc compile --model gpt2-mini --num-layers 3 "));
  CHECK(line.find(" -b 8 ") != std::string::npos);

  QSignalSpy requested(&panel, &views::CompilePanel::compileRequested);
  panel.modelParamsEdit()->setText(QStringLiteral("num_layers=three"));
  panel.requestCompile();
  CHECK(requested.isEmpty());  // the typo is reported by the form
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("num_layers=three")));

  panel.modelParamsEdit()->setText(QStringLiteral("num_layers=3"));
  panel.archBox()->setCurrentText(QStringLiteral("sn99"));
  QSignalSpy done(&bound.session, &studio::Session::compileFinished);
  QSignalSpy busy(&bound.session, &studio::Session::busyChanged);
  panel.requestCompile();
  REQUIRE(done.count() == 1);  // refused at once: no compile started
  CHECK(busy.isEmpty());
  CHECK(!done.at(0).at(0).toBool());
  CHECK(done.at(0).at(2).toString().contains(QStringLiteral("--arch sn99")));
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("--arch sn99")));
}

TEST_CASE("Compile screen offers 16 chips for inference, 8 for training", "[gui][compile]") {
  guitest::ensureApp();
  BoundPanel bound;
  views::CompilePanel& panel = bound.panel;
  panel.setDbPath(QStringLiteral("-"));
  panel.modelBox()->setCurrentText(QStringLiteral("llama-tiny"));
  CHECK(panel.chipsBox()->maximum() == 8);
  panel.inferenceBox()->setChecked(true);
  CHECK(panel.chipsBox()->maximum() == 16);
  panel.chipsBox()->setValue(16);
  auto options = panel.compileOptions();
  REQUIRE(options.ok());
  CHECK(options->nChips == 16);
  CHECK(options->inference);
  panel.inferenceBox()->setChecked(false);  // back to training: the value follows the limit
  CHECK(panel.chipsBox()->value() == 8);
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
  REQUIRE(panel.compileOptions().ok());
  CHECK(panel.compileOptions()->batchSize == 32);
  CHECK(panel.compileOptions()->level == partition::OptLevel::O3);
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
