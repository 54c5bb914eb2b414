#include "driver/Runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "driver/DataFeeder.h"
#include "driver/RunTrace.h"
#include "driver/StoreRecords.h"
#include "pef/Pef.h"
#include "profile/ChromeTrace.h"
#include "runtime/Executor.h"
#include "support/FileUtil.h"

namespace dfc::driver {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double usSince(Clock::time_point origin, Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - origin).count();
}

struct Session {
  Session(const RunOptions& o, const LogFn& l, const std::atomic<bool>* c) : opts(o), log(l), cancel(c) {}
  const RunOptions& opts;
  const LogFn& log;
  const std::atomic<bool>* cancel;
  pef::Pef pef;
  runtime::Executor* exec = nullptr;
  RunTrace* trace = nullptr;
  std::optional<profile::RunStore> store;
  int64_t runId = 0;
  Clock::time_point origin = Clock::now();
  std::vector<profile::SectionCallRecord> pendingCalls;
  std::vector<profile::MetricRecord> pendingMetrics;
  RunResult result;
  int64_t step = 0;

  void say(const std::string& line) {
    if (log) log(line);
    spdlog::debug("{}", line);
  }
  bool cancelled() const { return cancel && cancel->load(); }

  Status flush() {
    if (!store || runId == 0) return {};
    DFC_TRY(store->addSectionCalls(runId, pendingCalls));
    DFC_TRY(store->addMetrics(runId, pendingMetrics));
    pendingCalls.clear();
    pendingMetrics.clear();
    return {};
  }

  Status runStep(bool forwardOnly) {
    auto onSection = [&](const runtime::SectionCall& call) {
      double start = usSince(origin, call.start);
      const auto& s = pef.plan.sections[static_cast<size_t>(call.sectionId)];
      trace->addSectionCall(call.sectionId, step, start, call.durationUs, call.bytes);
      pendingCalls.push_back({call.sectionId, result.sectionCalls, step, start, call.durationUs, s.estimate.latencyUs,
                              call.bytes});
      result.measuredSectionUs += call.durationUs;
      result.estimatedSectionUs += s.estimate.latencyUs;
      ++result.sectionCalls;
    };
    DFC_TRY(exec->step(forwardOnly, onSection));
    ++step;
    if (pendingCalls.size() > 20000) DFC_TRY(flush());
    return {};
  }

  Status train(DataFeeder& data, ir::ValueId input, ir::ValueId labels, ir::ValueId lr, ir::ValueId loss) {
    ir::Tensor inputs(pef.graph.value(input).type);
    ir::Tensor labelBatch(pef.graph.value(labels).type);
    ir::Tensor lrTensor = ir::Tensor::scalarF32(static_cast<float>(opts.learningRate.value_or(pef.meta.defaultLr)));
    DFC_TRY(exec->setInput(lr, lrTensor));
    int64_t stepsPerEpoch = data.trainSteps();
    int64_t batch = inputs.shape()[0];
    std::mt19937_64 rng(opts.seed);
    auto trainStart = Clock::now();
    for (int epoch = 1; epoch <= opts.epochs; ++epoch) {
      auto epochStart = Clock::now();
      data.startEpoch(rng);
      for (int64_t i = 0; i < stepsPerEpoch; ++i) {
        if (cancelled()) return makeError("run cancelled");
        data.fillTrain(i, inputs, labelBatch);
        DFC_TRY(exec->setInput(input, inputs));
        DFC_TRY(exec->setInput(labels, labelBatch));
        DFC_TRY(runStep(false));
        double l = exec->tensor(loss).data<float>()[0];
        if (!std::isfinite(l))
          return makeError("loss became " + std::to_string(l) + " at step " + std::to_string(step) +
                           "; try a smaller --lr");
        if (!result.firstLoss) result.firstLoss = l;
        result.finalLoss = l;
        if ((i + 1) % opts.logEvery == 0 || i + 1 == stepsPerEpoch) {
          double ts = usSince(origin, Clock::now());
          trace->addLoss(ts, l);
          pendingMetrics.push_back({step, epoch, "loss", l});
          char line[160];
          std::snprintf(line, sizeof line, "Epoch [%d/%d], Step [%lld/%lld], Loss: %.4f", epoch, opts.epochs,
                        static_cast<long long>(i + 1), static_cast<long long>(stepsPerEpoch), l);
          say(line);
        }
      }
      trace->addHostPhase("train epoch " + std::to_string(epoch), usSince(origin, epochStart),
                          usSince(epochStart, Clock::now()));
    }
    result.trainSeconds = std::chrono::duration<double>(Clock::now() - trainStart).count();
    result.steps = step;
    result.samplesPerSecond = static_cast<double>(step) * static_cast<double>(batch) / std::max(result.trainSeconds, 1e-9);
    pendingMetrics.push_back({step, opts.epochs, "samples_per_s", result.samplesPerSecond});
    return {};
  }

  Status evaluate(DataFeeder& data, ir::ValueId input, ir::ValueId logits) {
    auto evalStart = Clock::now();
    ir::Tensor inputs(pef.graph.value(input).type);
    int64_t correct = 0, stepsBefore = step;
    for (int64_t i = 0; i < data.evalSteps(); ++i) {
      if (cancelled()) return makeError("run cancelled");
      data.fillEval(i, inputs);
      DFC_TRY(exec->setInput(input, inputs));
      DFC_TRY(runStep(true));
      correct += data.countCorrect(i, exec->tensor(logits));
    }
    result.evalSteps = step - stepsBefore;
    result.testSamples = data.testSamples();
    result.testAccuracy = result.testSamples ? static_cast<double>(correct) / static_cast<double>(result.testSamples) : 0.0;
    pendingMetrics.push_back({step, opts.epochs, "test_accuracy", result.testAccuracy});
    trace->addHostPhase("evaluate", usSince(origin, evalStart), usSince(evalStart, Clock::now()));
    return {};
  }

  Expected<ir::ValueId> valueNamed(const std::string& name) {
    ir::ValueId id = pef.graph.findValue(name);
    if (id == ir::kNoValue) return makeError(opts.pefPath + ": meta names value '" + name + "' that the graph lacks");
    return id;
  }

  Status body() {
    auto t0 = Clock::now();
    auto loaded = pef::readPef(opts.pefPath);
    if (!loaded) return loaded.error();
    pef = std::move(*loaded);
    auto executor = runtime::Executor::create(pef.graph, pef.plan, {opts.threads});
    if (!executor) return executor.error().withContext(opts.pefPath);
    exec = &*executor;
    RunTrace runTrace(pef, pef.meta.pefName + " (" + pef.meta.arch + ", -" + pef.meta.optLevel + ", host CPU)");
    trace = &runTrace;
    trace->addHostPhase("load PEF", 0, usSince(t0, Clock::now()));
    bool training = !pef.meta.inference && !opts.inference;
    if (!pef.meta.inference && opts.inference) spdlog::info("--inference: evaluating the training PEF's forward sections only");

    auto dataStart = Clock::now();
    auto feeder = makeDataFeeder(pef, opts.dataFolder, training, {opts.trainLimit, opts.testLimit});
    if (!feeder) return feeder.error();
    trace->addHostPhase("load data", usSince(origin, dataStart), usSince(dataStart, Clock::now()));
    auto input = valueNamed(pef.meta.imageInput);
    if (!input) return input.error();
    auto logits = valueNamed(pef.meta.logitsOutput);
    if (!logits) return logits.error();

    if (opts.dbPath != "-") {
      auto s = openStore(opts.dbPath);
      if (!s) return s.error();
      store = std::move(*s);
      profile::RunRecord rec;
      std::string pefPath = fs::absolute(opts.pefPath).lexically_normal().string();
      auto compileId = store->latestCompileForPef(pefPath);
      if (compileId) rec.compileId = *compileId;
      rec.pefPath = pefPath;
      rec.args = joinArgs(opts.args);
      rec.startedAt = support::isoTimestampUtc();
      rec.status = "running";
      rec.tracePath = fs::absolute(result.tracePath).lexically_normal().string();
      rec.epochs = training ? opts.epochs : 0;
      auto id = store->beginRun(rec);
      if (!id) return id.error();
      runId = result.runId = *id;
    }

    if (training) {
      auto labels = valueNamed(pef.meta.labelsInput);
      auto lr = valueNamed(pef.meta.lrInput);
      auto loss = valueNamed(pef.meta.lossOutput);
      if (!labels) return labels.error();
      if (!lr) return lr.error();
      if (!loss) return loss.error();
      DFC_TRY(train(**feeder, *input, *labels, *lr, *loss));
    }
    DFC_TRY(evaluate(**feeder, *input, *logits));
    char line[96];
    std::snprintf(line, sizeof line, "Test Accuracy: %.2f%%%s", 100.0 * result.testAccuracy,
                  pef.meta.task == "language_model" ? " (next-token)" : "");
    say(line);
    DFC_TRY(flush());

    trace->setMetadata("pef", opts.pefPath);
    trace->setMetadata("model", pef.meta.model);
    trace->setMetadata("arch", pef.meta.arch);
    trace->setMetadata("opt_level", pef.meta.optLevel);
    DFC_TRY(profile::writeChromeTrace(trace->take(), result.tracePath));
    return {};
  }
};

}  // namespace

Expected<RunResult> run(const RunOptions& opts, const LogFn& log, const std::atomic<bool>* cancel) {
  if (opts.pefPath.empty()) return makeError("-p/--pef is required");
  if (opts.epochs < 1) return makeError("-e/--num-epochs must be at least 1");
  if (opts.learningRate && !(*opts.learningRate > 0)) return makeError("--lr must be positive");
  if (opts.logEvery < 1) return makeError("log interval must be at least 1");
  Session session(opts, log, cancel);
  fs::path pefPath(opts.pefPath);
  session.result.tracePath =
      opts.tracePath.empty()
          ? (pefPath.parent_path() / (pefPath.stem().string() + "_chrome_tracing_report.json")).string()
          : opts.tracePath;
  Status st = session.body();
  if (session.store && session.runId) {
    (void)session.flush();
    auto fin = session.store->finishRun(session.runId, st ? "finished" : "failed", session.result.finalLoss,
                                        st ? std::optional<double>(session.result.testAccuracy) : std::nullopt);
    if (!fin) spdlog::warn("run store: {}", fin.error().message());
  }
  if (!st) return st.error();
  return session.result;
}

}  // namespace dfc::driver
