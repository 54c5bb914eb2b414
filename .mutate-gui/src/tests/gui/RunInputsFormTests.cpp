// The Compile screen's input shapes (--input-shape) and its "Run on given
// inputs" box (dfc run --inference --input): the form's values reach the
// options, and a run on random inputs logs each output.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "Session.h"
#include "SessionBinding.h"
#include "compile/CompilePanel.h"
#include "compile/RunInputsForm.h"

using namespace dfc;

TEST_CASE("Compile screen passes its input shapes, comma- or line-separated, as --input-shape", "[gui][compile]") {
  guitest::ensureApp();
  studio::Session session;
  views::CompilePanel panel;
  studio::bindCompilePanel(&session, &panel);
  panel.setDbPath(QStringLiteral("-"));
  panel.modelBox()->setCurrentText(QStringLiteral("model.onnx"));
  panel.inputShapesEdit()->setPlainText(QStringLiteral("images=1x3x640x640, mask=1x1x640x640\n  scale=1\n"));
  auto options = panel.compileOptions();
  REQUIRE(options.ok());
  CHECK(options->inputShapes == std::vector<std::string>{"images=1x3x640x640", "mask=1x1x640x640", "scale=1"});
  std::string line;
  for (const std::string& a : studio::Session::compileArgs(*options)) line += a + " ";
  CHECK(line.find(" --input-shape images=1x3x640x640 --input-shape mask=1x1x640x640 --input-shape scale=1 ") !=
        std::string::npos);
  panel.setOptions(*options);  // an open PEF's settings fill the field back, one per line
  CHECK(panel.inputShapesEdit()->toPlainText() == QStringLiteral("images=1x3x640x640\nmask=1x1x640x640\nscale=1"));

  // A bad entry is refused before any compile starts, named.
  panel.inputShapesEdit()->setPlainText(QStringLiteral("images=1x3xbigx640"));
  QSignalSpy done(&session, &studio::Session::compileFinished);
  panel.requestCompile();
  REQUIRE(done.count() == 1);
  CHECK(!done.at(0).at(0).toBool());
  CHECK(done.at(0).at(2).toString().contains(QStringLiteral("images=1x3xbigx640")));
}

TEST_CASE("Compile screen runs an inference PEF on given inputs, one row per graph input",
          "[gui][compile][run-inputs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  studio::Session session;
  views::CompilePanel panel;
  studio::bindCompilePanel(&session, &panel);
  panel.setDbPath(dir.filePath(QStringLiteral("runs.sqlite")));
  panel.show();
  panel.modelBox()->setCurrentText(QStringLiteral("logreg"));
  panel.inferenceBox()->setChecked(true);
  panel.batchSizeBox()->setValue(2);
  panel.outputFolderEdit()->setText(dir.filePath(QStringLiteral("pef")));
  QSignalSpy compiled(&session, &studio::Session::compileFinished);
  panel.requestCompile();
  REQUIRE(compiled.wait(60000));
  REQUIRE(compiled.at(0).at(0).toBool());

  views::RunInputsForm* inputs = panel.runInputsForm();
  CHECK(!inputs->isChecked());
  inputs->setChecked(true);  // the PEF's inputs become rows; the data set's fields are off
  CHECK(!panel.trainLimitBox()->isEnabled());
  QLineEdit* images = inputs->sourceEdit(QStringLiteral("image"));  // the zoo's f32[2,1,28,28]
  REQUIRE(images);
  CHECK(images->text() == QStringLiteral("random"));
  inputs->seedBox()->setValue(5);
  inputs->outputDirEdit()->setText(dir.filePath(QStringLiteral("outputs")));
  const driver::RunOptions o = panel.runOptions();
  REQUIRE(o.inputs.size() == 1);
  CHECK(o.inputs[0].source == "random");
  CHECK(o.inference);
  CHECK(o.seed == 5);
  CHECK(o.outputDir == dir.filePath(QStringLiteral("outputs")).toStdString());
  std::string line;
  for (const std::string& a : studio::Session::runArgs(o)) line += a + " ";
  CHECK(line.find(" --inference --input " + o.inputs[0].name + "=random --seed 5 --output-dir ") != std::string::npos);

  QSignalSpy ran(&session, &studio::Session::runFinished);
  panel.requestRun();
  REQUIRE(ran.wait(60000));
  INFO(ran.at(0).at(2).toString().toStdString() << "\n" << panel.logPane()->toPlainText().toStdString());
  REQUIRE(ran.at(0).at(0).toBool());
  CHECK(ran.at(0).at(2).toString().contains(QStringLiteral("one forward step, 1 output(s) written as .npy")));
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("from random (seed 5)")));
  CHECK(panel.logPane()->toPlainText().contains(QStringLiteral("Output ")));
  CHECK(QDir(dir.filePath(QStringLiteral("outputs"))).entryList(QDir::Files).size() == 1);
  if (qEnvironmentVariableIsSet("DFC_GUI_SCREENSHOT_DIR")) {
    panel.resize(1400, 900);
    panel.grab().save(qEnvironmentVariable("DFC_GUI_SCREENSHOT_DIR") + QStringLiteral("/compile_run_inputs.png"));
  }
}
