#pragma once
// The app's engine work that outlives a click: compile and run, one at a time,
// off the UI thread (hotspot's PerfParser: a QObject, not a widget). It takes
// the engine's option structs, reports progress and log lines, can be
// cancelled, and says how each job ended. Screens only edit options and show
// what it emits.
#include <QObject>
#include <QString>
#include <string>
#include <vector>

#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"

namespace dfc::views {
class LatestJob;
}

namespace dfc::studio {

class Session : public QObject {
  Q_OBJECT

 public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;  // a running job is cancelled and delivers nothing

  // Start a compile or a run; false when one is running already or the
  // options are unusable (then the matching *Finished signal says why).
  bool compile(driver::CompileOptions options);
  bool run(driver::RunOptions options);
  void cancel();
  bool isBusy() const;
  // The PEF of the last successful compile ("" before one).
  QString lastPefPath() const { return m_lastPef; }

  // The command lines recorded in the PEF and the run store for work started here.
  static std::vector<std::string> compileArgs(const driver::CompileOptions& options);
  static std::vector<std::string> runArgs(const driver::RunOptions& options);

 signals:
  void busyChanged(bool busy);
  void started(const QString& what);  // "Compiling lenet..."
  void compileProgress(const QString& stage, int index, int total, double fraction);
  void logLine(const QString& level, const QString& text);  // the runtime's progress lines
  // ok: `pefPath` is the new PEF (absolute), `message` a summary; else `message` says why.
  void compileFinished(bool ok, const QString& pefPath, const QString& message);
  // ok: `tracePath` is the run's chrome trace.
  void runFinished(bool ok, const QString& tracePath, const QString& message);

 private:
  void endCompile(const Expected<driver::CompileResult>& result);
  void endRun(const Expected<driver::RunResult>& result);

  views::LatestJob* m_job = nullptr;
  QString m_lastPef;
  bool m_cancelRequested = false;
};

}  // namespace dfc::studio
