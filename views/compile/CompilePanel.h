#pragma once
// The compile screen: pick a model and set every `dfc compile` option, then
// ask for a Compile, a Run of the PEF or a Cancel. The work itself runs
// elsewhere (dfstudio's Session); this screen shows its progress bar, status
// and log (spdlog's lines and the run's progress lines).
#include <QWidget>
#include <map>

#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"

class QCheckBox;
class QFormLayout;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace dfc::views {

class RunInputsForm;

class CompilePanel : public QWidget {
  Q_OBJECT

 public:
  explicit CompilePanel(QWidget* parent = nullptr);

  void setDbPath(const QString& path) { m_dbPath = path; }
  // The form as compile options ("" fields mean the driver's default), model
  // parameters parsed once; an error names the bad entry.
  Expected<driver::CompileOptions> compileOptions() const;
  // "num_layers=2 hidden_size=64" -> map; an error names the bad entry.
  static Expected<std::map<std::string, int64_t>> parseModelParams(const QString& text);
  driver::RunOptions runOptions() const;
  // Fills the form with these options (an open PEF's recorded command line,
  // ready to compile again with a change); `from` says where they came from.
  void setOptions(const driver::CompileOptions& options, const QString& from = {});
  // Back to the defaults with `model` set (a model file just opened).
  void resetForModel(const QString& model);
  QLabel* sourceLabel() const { return m_source; }  // "Settings of lenet.pef"

  QString lastPefPath() const { return m_lastPef; }

  // Form access for tests and the main window.
  QComboBox* modelBox() const { return m_model; }
  QLineEdit* outputFolderEdit() const { return m_outputFolder; }
  QSpinBox* batchSizeBox() const { return m_batch; }
  QComboBox* optLevelBox() const { return m_optLevel; }
  QComboBox* archBox() const { return m_arch; }
  QLineEdit* modelParamsEdit() const { return m_modelParams; }
  QPlainTextEdit* inputShapesEdit() const { return m_inputShapes; }  // --input-shape, one per line or comma
  RunInputsForm* runInputsForm() const { return m_runInputs; }
  QCheckBox* inferenceBox() const { return m_inference; }
  QSpinBox* chipsBox() const { return m_nChips; }
  QLineEdit* runPefEdit() const { return m_runPef; }
  QSpinBox* trainLimitBox() const { return m_trainLimit; }
  QSpinBox* testLimitBox() const { return m_testLimit; }
  QPushButton* compileButton() const { return m_compile; }
  QPushButton* runButton() const { return m_run; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QPlainTextEdit* logPane() const { return m_log; }
  QCheckBox* experimentalToggle() const { return m_showExperimental; }

 public slots:
  // The buttons: each emits its request (a model parameter typo is reported here).
  void requestCompile();
  void requestRun();
  void requestCancel();

  // What the work reports back.
  void setBusy(bool busy);
  void showStarted(const QString& what);
  void showProgress(const QString& stage, int index, int total, double fraction);  // fraction: 0..1 of the work
  void appendLog(const QString& level, const QString& text);
  // ok: `pefPath` becomes the PEF to run.
  void showCompileFinished(bool ok, const QString& pefPath, const QString& message);
  void showRunFinished(bool ok, const QString& tracePath, const QString& message);

 signals:
  void compileRequested(const driver::CompileOptions& options);
  void runRequested(const driver::RunOptions& options);
  void cancelRequested();

 private:
  QWidget* buildModelForm();
  void addModelRows(QFormLayout* form);
  void addTrainingRows(QFormLayout* form);
  void addScaleRows(QFormLayout* form);
  void addExperimentalRows(QFormLayout* form);
  QWidget* buildRunForm();
  // Idles the progress bar as done, failed or cancelled and shows `message`.
  void showFinished(bool ok, const QString& message);
  void reportError(const QString& message);

  QString m_dbPath;
  QString m_lastPef;
  // Form
  QComboBox* m_model = nullptr;
  QLineEdit* m_pefName = nullptr;
  QLineEdit* m_outputFolder = nullptr;
  QCheckBox* m_inference = nullptr;
  QSpinBox* m_batch = nullptr;
  QComboBox* m_optLevel = nullptr;
  QComboBox* m_arch = nullptr;
  QComboBox* m_optimizer = nullptr;
  QDoubleSpinBox* m_lr = nullptr;
  QSpinBox* m_seed = nullptr;
  QCheckBox* m_showExperimental = nullptr;
  QGroupBox* m_experimental = nullptr;
  QCheckBox* m_debug = nullptr;
  QComboBox* m_o1Rules = nullptr;
  QCheckBox* m_hypersection = nullptr;
  QSpinBox* m_nChips = nullptr;
  QComboBox* m_numTiles = nullptr;
  QLineEdit* m_scaling = nullptr;
  QLineEdit* m_modelParams = nullptr;
  QPlainTextEdit* m_inputShapes = nullptr;
  // Run
  QLineEdit* m_runPef = nullptr;
  QSpinBox* m_epochs = nullptr;
  QSpinBox* m_trainLimit = nullptr;
  QSpinBox* m_testLimit = nullptr;
  QLineEdit* m_dataFolder = nullptr;
  RunInputsForm* m_runInputs = nullptr;
  // Progress
  QPushButton* m_compile = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_source = nullptr;
  QPlainTextEdit* m_log = nullptr;
  bool m_cancelRequested = false;
};

}  // namespace dfc::views
