#include "Session.h"

#include <QFileInfo>
#include <QLocale>

#include "schedule/RoleStyle.h"
#include "support/LatestJob.h"
#include "timeline/SliceInfo.h"

namespace dfc::studio {
namespace {

QString fromStd(const std::string& text) { return QString::fromStdString(text); }
const QString kInfo = QStringLiteral("info");

}  // namespace

Session::Session(QObject* parent) : QObject(parent), m_job(new views::LatestJob(this)) {
  connect(m_job, &views::LatestJob::busyChanged, this, &Session::busyChanged);
}

Session::~Session() = default;  // m_job, a child, cancels its job as it goes

bool Session::isBusy() const { return m_job->isBusy(); }

void Session::cancel() {
  if (!isBusy()) return;
  m_cancelRequested = true;
  m_job->cancel();
}

// The one place where the app decides what it records as a compile's command
// line: the one dfc records for the same options.
std::vector<std::string> Session::compileArgs(const driver::CompileOptions& options) { return options.toArgs(); }

std::vector<std::string> Session::runArgs(const driver::RunOptions& options) {
  std::vector<std::string> args{"dfstudio", "run", "--pef", options.pefPath};
  if (options.inputs.empty()) return args;
  args.push_back("--inference");
  for (const auto& in : options.inputs) args.insert(args.end(), {"--input", in.name + "=" + in.source});
  args.insert(args.end(), {"--seed", std::to_string(options.seed)});
  if (!options.outputDir.empty()) args.insert(args.end(), {"--output-dir", options.outputDir});
  return args;
}

bool Session::compile(driver::CompileOptions options) {
  if (isBusy()) return false;
  if (options.model.empty()) {
    emit compileFinished(false, {}, tr("Choose a model to compile: a zoo name or a .dfir file."));
    return false;
  }
  if (auto valid = options.validate(); !valid) {  // bad options never start a job
    emit compileFinished(false, {}, tr("Compile failed: %1").arg(fromStd(valid.error().message())));
    return false;
  }
  options.args = compileArgs(options);
  m_cancelRequested = false;
  emit started(tr("Compiling %1...").arg(fromStd(options.model)));
  emit logLine(kInfo, tr("--- compile %1 ---").arg(fromStd(options.model)));
  m_job->start(
      [this, options](const views::JobContext& job) {
        // Progress reaches the UI through the job, so it stops with it; `this`
        // is only used on the UI thread, where the job's tracker (our child) lives.
        auto progress = [this, &job](const driver::CompileProgress& p) {
          job.post([this, stage = fromStd(p.stage), index = p.index, total = p.total, fraction = p.fraction] {
            emit compileProgress(stage, index, total, fraction);
          });
        };
        return driver::compile(options, progress, job.cancelFlag());
      },
      [this](const Expected<driver::CompileResult>& result) { endCompile(result); });
  return true;
}

void Session::endCompile(const Expected<driver::CompileResult>& result) {
  if (!result) {
    const QString error = fromStd(result.error().message());
    emit compileFinished(false, {}, m_cancelRequested ? tr("Compile cancelled.") : tr("Compile failed: %1").arg(error));
    return;
  }
  const driver::CompileResult& r = *result;
  m_lastPef = QFileInfo(fromStd(r.pefPath)).absoluteFilePath();
  const QLocale locale;
  const QString message = tr("Compiled %1 nodes into %2 sections (%3) in %4; estimated %5 per step.\nPEF: %6")
                              .arg(locale.toString(r.numNodes))
                              .arg(locale.toString(r.numSections))
                              .arg(views::roleCounts(r.sectionsByRole))
                              .arg(views::formatDuration(r.compileMs * 1e3), views::formatDuration(r.estLatencyUs), m_lastPef);
  emit compileFinished(true, m_lastPef, message);
}

bool Session::run(driver::RunOptions options) {
  if (isBusy()) return false;
  const QString pef = fromStd(options.pefPath);
  QString problem;
  if (pef.isEmpty())
    problem = tr("Compile a model first, or choose a PEF to run.");
  else if (!QFileInfo::exists(pef))
    problem = tr("The PEF %1 does not exist.").arg(pef);
  if (!problem.isEmpty()) {
    emit runFinished(false, {}, problem);
    return false;
  }
  options.args = runArgs(options);
  m_cancelRequested = false;
  emit started(tr("Running %1...").arg(QFileInfo(pef).fileName()));
  emit logLine(kInfo, tr("--- run %1 ---").arg(pef));
  m_job->start(
      [this, options](const views::JobContext& job) {
        auto log = [this, &job](const std::string& line) {
          job.post([this, text = fromStd(line)] { emit logLine(kInfo, text); });
        };
        return driver::run(options, log, job.cancelFlag());
      },
      [this](const Expected<driver::RunResult>& result) { endRun(result); });
  return true;
}

void Session::endRun(const Expected<driver::RunResult>& result) {
  if (!result) {
    const QString error = fromStd(result.error().message());
    emit runFinished(false, {}, m_cancelRequested ? tr("Run cancelled.") : tr("Run failed: %1").arg(error));
    return;
  }
  const driver::RunResult& r = *result;
  QString message = tr("Run finished: %n training step(s)", nullptr, static_cast<int>(r.steps));
  if (!r.outputs.empty())  // a run on given inputs: its outputs are in the log
    message = tr("Run finished: one forward step, %n output(s)", nullptr, static_cast<int>(r.outputs.size())) +
              (r.outputFiles.empty() ? QString() : tr(" written as .npy"));
  if (r.finalLoss) message += tr(", final loss %1").arg(*r.finalLoss, 0, 'f', 4);
  if (r.testSamples > 0) message += tr(", test accuracy %1 %").arg(r.testAccuracy * 100.0, 0, 'f', 2);
  message += tr(".\nTrace: %1").arg(fromStd(r.tracePath));
  if (!r.storeNote.empty()) message += QStringLiteral("\n") + fromStd(r.storeNote);
  emit runFinished(true, fromStd(r.tracePath), message);
}

}  // namespace dfc::studio
