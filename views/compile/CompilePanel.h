#pragma once

#include <optional>
// The compile screen: pick a model, set every `dfc compile` option, Compile
// on a worker thread with a progress bar that follows the stages and a Cancel
// that stops it between stages; then Run the PEF (also on a worker). A log
// pane shows spdlog's lines and the run's progress lines.
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <map>
#include <memory>

#include "driver/Compiler.h"
#include "driver/Runner.h"

class QCheckBox;
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

struct CompileOutcome {
  QString error;  // empty on success
  driver::CompileResult result;
};

struct RunOutcome {
  QString error;
  driver::RunResult result;
};

class CompilePanel : public QWidget {
  Q_OBJECT

 public:
  explicit CompilePanel(QWidget* parent = nullptr);
  ~CompilePanel() override;  // cancels and waits for a running job

  void setDbPath(const QString& path) { m_dbPath = path; }
  // The form as compile options ("" fields mean the driver's default).
  // The options the form shows, model parameters parsed once; an error names the bad entry.
  // Its args are toArgs(): dfstudio records the same command line dfc would.
  Expected<driver::CompileOptions> compileOptions() const;
  // "num_layers=2 hidden_size=64" -> map; an error names the bad entry.
  static Expected<std::map<std::string, int64_t>> parseModelParams(const QString& text);
  driver::RunOptions runOptions() const;

  bool isBusy() const;
  QString lastPefPath() const { return m_lastPef; }

  // Form access for tests and the main window.
  QComboBox* modelBox() const { return m_model; }
  QLineEdit* outputFolderEdit() const { return m_outputFolder; }
  QSpinBox* batchSizeBox() const { return m_batch; }
  QComboBox* optLevelBox() const { return m_optLevel; }
  QComboBox* archBox() const { return m_arch; }
  QLineEdit* modelParamsEdit() const { return m_modelParams; }
  QCheckBox* inferenceBox() const { return m_inference; }
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
  void startCompile();
  void startRun();
  void cancel();

 signals:
  void busyChanged(bool busy);
  // ok: `path` is the PEF; else `path` is empty and `message` says what's wrong.
  void compileFinished(bool ok, const QString& path, const QString& message);
  // ok: `path` is the trace.
  void runFinished(bool ok, const QString& path, const QString& message);

 private:
  QWidget* buildModelForm();
  QWidget* buildRunForm();
  void appendLog(const QString& level, const QString& text);
  void setBusy(bool busy, const QString& what);
  void onCompileDone();
  void onRunDone();
  // The shared ending of a compile or a run: idles the form and, when `error` is set,
  // reports the failure (or the cancel) and returns its message.
  std::optional<QString> endWork(const QString& error, const QString& cancelledText, const QString& failedText);
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
  // Run
  QLineEdit* m_runPef = nullptr;
  QSpinBox* m_epochs = nullptr;
  QSpinBox* m_trainLimit = nullptr;
  QSpinBox* m_testLimit = nullptr;
  QLineEdit* m_dataFolder = nullptr;
  // Progress
  QPushButton* m_compile = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_status = nullptr;
  QPlainTextEdit* m_log = nullptr;

  std::shared_ptr<std::atomic<bool>> m_cancelFlag;
  QFutureWatcher<CompileOutcome> m_compileWatcher;
  QFutureWatcher<RunOutcome> m_runWatcher;
};

}  // namespace dfc::views
