// The stages of a run, in the order runStages() lists them.
#include "driver/run/RunStages.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "driver/compile/StoreRecords.h"
#include "driver/report/HostBreakdown.h"
#include "driver/run/DataParallelRun.h"
#include "driver/run/DecodeRun.h"
#include "driver/run/GivenInputsRun.h"
#include "profile/ChromeTrace.h"
#include "profile/TraceFile.h"
#include "support/FileUtil.h"
#include "support/SafePath.h"
#include "support/ThreadPool.h"

namespace dfc::driver {
namespace fs = std::filesystem;

namespace {
constexpr size_t kMaxPendingCalls = 4'000'000;  // ~200 MB of calls held while the store is unavailable
}  // namespace

void RunState::say(const std::string& line) {
  if (log && isRoot()) log(line);
  spdlog::debug("{}", line);
}

double RunState::usAt(Clock::time_point t) const { return std::chrono::duration<double, std::micro>(t - origin).count(); }

double RunState::usSince(Clock::time_point from) const {
  return std::chrono::duration<double, std::micro>(Clock::now() - from).count();
}

bool RunState::traced() const { return step >= opts.traceFrom && (opts.traceTo < 0 || step < opts.traceTo); }

void RunState::hostPhase(std::string_view name, Clock::time_point from, profile::Args args) {
  hostPhase(name, from, Clock::now(), std::move(args));
}

void RunState::hostPhase(std::string_view name, Clock::time_point from, Clock::time_point to, profile::Args args) {
  const bool perStep = name == host::kStep || name == host::kFeed;
  const double us = std::chrono::duration<double, std::micro>(to - from).count();
  const bool dispatch = name == host::kDispatch;
  if (dispatch) {  // counted in the breakdown, written as the step's total (stepArgs)
    stepDispatchUs += us;
    ++stepDispatchGaps;
  }
  trace->addHostPhase(name, usAt(from), us, !dispatch && (!perStep || traced()), std::move(args));
}

profile::Args RunState::stepArgs(int64_t index) {
  profile::Args args{{"step", static_cast<double>(index)},
                     {std::string(host::kDispatchUsArg), std::round(stepDispatchUs * 1000) / 1000},
                     {std::string(host::kDispatchGapsArg), static_cast<double>(stepDispatchGaps)}};
  stepDispatchUs = 0;
  stepDispatchGaps = 0;
  return args;
}

// Store writes never stop the run: a busy or broken store keeps the rows
// for the next try (each waits SQLite's busy timeout) and the run goes on.
Status RunState::flush() {
  if (!store || runId == 0) return {};
  const auto start = Clock::now();
  Status st = flushRecords();
  if (trace) trace->addHostPhase(host::kStoreWrite, usAt(start), usSince(start));
  return st;
}

Status RunState::flushRecords() {
  if (auto st = store->addSectionCalls(runId, pendingCalls); !st) return storeUnavailable(st.error());
  pendingCalls.clear();
  if (auto st = store->addMetrics(runId, pendingMetrics); !st) return storeUnavailable(st.error());
  pendingMetrics.clear();
  storeError.clear();
  return {};
}

Status RunState::storeUnavailable(const Error& e) {
  if (storeError.empty()) spdlog::warn("run store: {} (keeping the run's records to retry)", e.message());
  storeError = e.message();
  if (pendingCalls.size() > kMaxPendingCalls) pendingCalls.clear();  // bounded memory: these calls go unrecorded
  return {};
}

// Host time between section calls (and before the first, after the last) is
// the step's dispatch overhead: one host-row slice per gap.
Status RunState::runStep(bool forwardOnly) {
  Clock::time_point gapStart = Clock::now();
  auto dispatchGap = [&](Clock::time_point end) {
    if (end > gapStart) hostPhase(host::kDispatch, gapStart, end);
  };
  auto onSection = [&](const runtime::SectionCall& call) {
    dispatchGap(call.start);
    gapStart = call.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(call.durationUs));
    double start = usAt(call.start);
    const auto& s = pef.plan.sections[static_cast<size_t>(call.sectionId)];
    if (traced())  // --trace-steps
      trace->addSectionCall(call.sectionId, step, start, call.durationUs, call.bytes);
    pendingCalls.push_back({call.sectionId, result.sectionCalls, step, start, call.durationUs, s.estimate.latencyUs,
                            call.bytes});
    result.measuredSectionUs += call.durationUs;
    result.estimatedSectionUs += s.estimate.latencyUs;
    ++result.sectionCalls;
    if (s.type == ir::NodeRole::Reduce) noteAllreduceCall(*this, call);
  };
  DFC_TRY(exec->step(forwardOnly, onSection));
  dispatchGap(Clock::now());
  ++step;
  if (pendingCalls.size() > 20000) DFC_TRY(flush());
  return {};
}

Expected<ir::ValueId> RunState::valueNamed(const std::string& name) const {
  ir::ValueId id = pef.graph.findValue(name);
  if (id == ir::kNoValue) return makeError(opts.pefPath + ": meta names value '" + name + "' that the graph lacks");
  return id;
}

namespace {

Status validateStage(RunState& s) {
  const RunOptions& o = s.opts;
  if (o.pefPath.empty()) return makeError("-p/--pef is required");
  if (o.epochs < 1) return makeError("-e/--num-epochs must be at least 1");
  if (o.learningRate && !(*o.learningRate > 0 && std::isfinite(*o.learningRate))) return makeError("--lr must be a positive finite number");
  if (o.logEvery < 1) return makeError("log interval must be at least 1");
  if (o.rank < 0) return makeError("rank must be at least 0");
  DFC_TRY(checkAllreduceOptions(o));
  fs::path pefPath(o.pefPath);
  s.result.tracePath = o.tracePath.empty()
                           ? (pefPath.parent_path() / (pefPath.stem().string() + "_chrome_tracing_report.json")).string()
                           : o.tracePath;
  // Refused before any work: a device, FIFO or directory is never replaced by the trace.
  if (auto target = support::checkOutputFile(s.result.tracePath, "--trace"); !target) return target.error();
  s.setupEnd = RunState::Clock::now();
  return {};
}

// The PEF, an executor over it and the trace it is recorded in.
Status loadPefStage(RunState& s) {
  auto t0 = RunState::Clock::now();
  auto loaded = pef::readPef(s.opts.pefPath);
  if (!loaded) return loaded.error();
  s.pef = std::move(*loaded);
  auto joinStart = RunState::Clock::now();
  DFC_TRY(joinDataParallel(s));
  auto executorStart = RunState::Clock::now();
  runtime::ExecutorOptions options;
  options.threads = s.opts.threads;
  // Data parallel without --threads: the host's cores shared among the ranks
  // on it, as idle pool threads spin for work and would take each other's cores.
  if (s.comm && options.threads <= 0) {
    auto local = s.comm->ranksPerHost();
    const int ranks = local && *local > 0 ? *local : s.comm->worldSize();
    options.threads = std::max(1, support::ThreadPool::defaultThreads() / ranks);
  }
  options.convAlgo = s.opts.convAlgo;
  if (s.opts.deterministic) options.splitWidth = runtime::kDeterministicSplitWidth;
  options.communicator = s.allreducer ? s.allreducer.get() : s.comm;
  auto executor = runtime::Executor::create(s.pef.graph, s.pef.plan, options);
  if (!executor) return executor.error().withContext(s.opts.pefPath);
  s.exec.emplace(std::move(*executor));
  s.result.threads = s.exec->threads();
  s.result.splitWidth = options.splitWidth;
  const auto executorDone = RunState::Clock::now();
  const pef::PefMeta& meta = s.pef.meta;
  const std::string label = meta.pefName + " (" + meta.arch + ", -" + meta.optLevel + ", host CPU)";
  s.trace.emplace(s.pef, label, s.comm ? s.result.rank : s.opts.rank);
  if (s.comm) s.trace->setProcessLabel("rank " + std::to_string(s.result.rank) + " (host)");  // short: row headers
  traceAllreduce(s);
  s.trace->setConvAlgo(s.opts.convAlgo);
  s.hostPhase(host::kSetup, s.origin, s.setupEnd);
  s.hostPhase(host::kPefLoad, t0, joinStart);
  if (s.comm) s.hostPhase(host::kJoinRanks, joinStart, executorStart, {{"ranks", s.comm->describe()}});  // MPI_Init mostly
  s.hostPhase(host::kWeights, executorStart, executorDone);
  s.training = !meta.inference && !s.opts.inference;
  if (!meta.inference && s.opts.inference) spdlog::info("--inference: evaluating the training PEF's forward sections only");
  return {};
}

Status loadDataStage(RunState& s) {
  if (s.opts.decode) return prepareDecode(s);  // no data set: a prompt (driver/DecodeRun.h)
  if (!s.opts.inputs.empty()) return prepareGivenInputs(s);  // no data set: the user's inputs
  if (s.pef.meta.kvCacheLen > 0)
    return makeError(s.opts.pefPath + " is a decode step: run it with --decode and a prompt (--prompt or --prompt-tokens)");
  auto dataStart = RunState::Clock::now();
  auto feeder = makeDataFeeder(s.pef, s.opts.dataFolder, s.training, {s.opts.trainLimit, s.opts.testLimit});
  if (!feeder) return feeder.error();
  s.feeder = std::move(*feeder);
  s.hostPhase(host::kDataLoad, dataStart);
  auto input = s.valueNamed(s.pef.meta.imageInput);
  if (!input) return input.error();
  auto logits = s.valueNamed(s.pef.meta.logitsOutput);
  if (!logits) return logits.error();
  s.input = *input;
  s.logits = *logits;
  return {};
}

// The run in the store, as "running" until driver::run finishes it.
Status openRunRecord(RunState& s) {
  if (s.opts.dbPath == "-" || !s.isRoot()) return {};
  auto store = openStore(s.opts.dbPath);
  if (!store && store.error().kind() == ErrorKind::BadInput) return store.error();  // not a database: the user's to fix
  if (!store) {  // busy or broken: train anyway, without a record
    s.storeError = store.error().message();
    return {};
  }
  s.store = std::move(*store);
  profile::RunRecord rec;
  std::string pefPath = fs::absolute(s.opts.pefPath).lexically_normal().string();
  auto compileId = s.store->latestCompileForPef(pefPath);
  if (compileId) rec.compileId = *compileId;
  rec.pefPath = pefPath;
  rec.args = joinArgs(s.opts.args);
  rec.startedAt = support::isoTimestampUtc();
  rec.status = "running";
  rec.tracePath = fs::absolute(s.result.tracePath).lexically_normal().string();
  rec.epochs = s.training ? s.opts.epochs : 0;
  auto id = s.store->beginRun(rec);
  if (id) s.runId = s.result.runId = *id;
  else s.storeError = id.error().message();
  return {};
}

Status openStoreStage(RunState& s) {
  const auto start = RunState::Clock::now();
  Status st = openRunRecord(s);
  s.hostPhase(host::kSetup, start);
  return st;
}

// After a training step: the loss, checked, and every logEvery steps a line, a counter and a metric.
Status noteLoss(RunState& s, ir::ValueId loss, int epoch, int64_t i, int64_t stepsPerEpoch) {
  auto averaged = averageLoss(s, s.exec->tensor(loss).data<float>()[0]);  // the global batch's loss
  if (!averaged) return averaged.error();
  const double l = *averaged;
  if (!std::isfinite(l))
    return makeError("loss became " + std::to_string(l) + " at step " + std::to_string(s.step) + " with learning rate " +
                     std::to_string(s.opts.learningRate.value_or(s.pef.meta.defaultLr)) +
                     (s.opts.learningRate ? " (--lr)" : " (the PEF's default_lr)") + "; try a smaller --lr");
  if (!s.result.firstLoss) s.result.firstLoss = l;
  s.result.finalLoss = l;
  if ((i + 1) % s.opts.logEvery != 0 && i + 1 != stepsPerEpoch) return {};
  s.trace->addLoss(s.usAt(RunState::Clock::now()), l);
  s.pendingMetrics.push_back({s.step, epoch, "loss", l});
  char line[160];
  std::snprintf(line, sizeof line, "Epoch [%d/%d], Step [%lld/%lld], Loss: %.4f", epoch, s.opts.epochs,
                static_cast<long long>(i + 1), static_cast<long long>(stepsPerEpoch), l);
  s.say(line);
  return {};
}

Status trainStage(RunState& s) {
  if (!s.training) return {};
  const pef::PefMeta& meta = s.pef.meta;
  auto labels = s.valueNamed(meta.labelsInput);
  auto lr = s.valueNamed(meta.lrInput);
  auto loss = s.valueNamed(meta.lossOutput);
  if (!labels) return labels.error();
  if (!lr) return lr.error();
  if (!loss) return loss.error();
  ir::Tensor inputs(s.pef.graph.value(s.input).type);
  ir::Tensor labelBatch(s.pef.graph.value(*labels).type);
  DFC_TRY(s.exec->setInput(*lr, ir::Tensor::scalarF32(static_cast<float>(s.opts.learningRate.value_or(meta.defaultLr)))));
  const int64_t stepsPerEpoch = shardSteps(s, s.feeder->trainSteps()), batch = inputs.shape()[0];
  std::mt19937_64 rng(s.opts.seed);
  auto trainStart = RunState::Clock::now();
  for (int epoch = 1; epoch <= s.opts.epochs; ++epoch) {
    auto epochStart = RunState::Clock::now();
    s.feeder->startEpoch(rng);
    for (int64_t i = 0; i < stepsPerEpoch; ++i) {
      if (s.cancelled()) return makeError("run cancelled");
      auto feed = [&]() -> Status {
        s.feeder->fillTrain(shardBatchIndex(s, i), inputs, labelBatch);
        DFC_TRY(s.exec->setInput(s.input, inputs));
        return s.exec->setInput(*labels, labelBatch);
      };
      DFC_TRY(hostStep(s, false, feed, [&] { return noteLoss(s, *loss, epoch, i, stepsPerEpoch); }));
      if (s.stageProgress)
        s.stageProgress(static_cast<double>((epoch - 1) * stepsPerEpoch + i + 1) /
                        static_cast<double>(std::max<int64_t>(1, s.opts.epochs * stepsPerEpoch)));
    }
    s.hostPhase(host::kEpoch, epochStart, {{"epoch", static_cast<double>(epoch)}});
  }
  RunResult& r = s.result;
  r.trainSeconds = std::chrono::duration<double>(RunState::Clock::now() - trainStart).count();
  r.steps = s.step;
  r.samplesPerSecond = static_cast<double>(s.step) * static_cast<double>(batch) / std::max(r.trainSeconds, 1e-9);
  DFC_TRY(finishDataParallelTraining(s));
  recordDataParallelMetrics(s);
  s.pendingMetrics.push_back({s.step, s.opts.epochs, "samples_per_s", r.samplesPerSecond});
  return {};
}

// Forward-only steps over the test split: the accuracy.
Status evaluateStage(RunState& s) {
  if (!s.isRoot() || s.opts.decode) return {};  // data parallel: the weights are identical, rank 0 evaluates them
  if (!s.opts.inputs.empty()) return runGivenInputs(s);
  auto evalStart = RunState::Clock::now();
  ir::Tensor inputs(s.pef.graph.value(s.input).type);
  int64_t correct = 0, stepsBefore = s.step;
  for (int64_t i = 0; i < s.feeder->evalSteps(); ++i) {
    if (s.cancelled()) return makeError("run cancelled");
    auto feed = [&]() -> Status {
      s.feeder->fillEval(i, inputs);
      return s.exec->setInput(s.input, inputs);
    };
    auto count = [&]() -> Status {
      correct += s.feeder->countCorrect(i, s.exec->tensor(s.logits));
      return {};
    };
    DFC_TRY(hostStep(s, true, feed, count));
    if (s.stageProgress) s.stageProgress(static_cast<double>(i + 1) / static_cast<double>(s.feeder->evalSteps()));
  }
  RunResult& r = s.result;
  r.evalSteps = s.step - stepsBefore;
  r.testSamples = s.feeder->testSamples();
  r.testAccuracy = r.testSamples ? static_cast<double>(correct) / static_cast<double>(r.testSamples) : 0.0;
  s.pendingMetrics.push_back({s.step, s.opts.epochs, "test_accuracy", r.testAccuracy});
  char line[96];
  std::snprintf(line, sizeof line, "Test Accuracy: %.2f%%%s", 100.0 * r.testAccuracy,
                s.pef.meta.task == "language_model" ? " (next-token)"
                : s.pef.meta.task == "segmentation" ? " (per pixel)"
                                                     : "");
  s.say(line);
  Status st = s.flush();
  s.hostPhase(host::kEvaluate, evalStart);  // the store write above nests in it
  return st;
}

Status writeTraceStage(RunState& s) {
  if (!s.isRoot()) return {};  // rank 0 gathered this rank's rows after training
  const auto start = RunState::Clock::now();
  s.trace->setMetadata("pef", s.opts.pefPath);
  s.trace->setMetadata("model", s.pef.meta.model);
  s.trace->setMetadata("arch", s.pef.meta.arch);
  s.trace->setMetadata("opt_level", s.pef.meta.optLevel);
  profile::Trace trace = s.trace->take();
  DFC_TRY(mergeRankTraces(s, trace));
  std::string json = profile::chromeTraceToJson(trace);
  // Its own slice goes in last, timing the gathering and serializing (the file write follows it).
  const double us = s.usSince(start);
  s.trace->addHostPhase(host::kTraceWrite, s.usAt(start), us, false);
  DFC_TRY(profile::appendTraceEvents(
      json, {{'X', std::string(host::kTraceWrite), "host", s.trace->pid(), RunTrace::kHostTid, s.usAt(start), us, {}}}));
  DFC_TRY(profile::writeTraceFile(s.result.tracePath, json));
  for (auto& m : hostBreakdownMetrics(s.trace->hostBreakdown().rows())) s.pendingMetrics.push_back(std::move(m));
  s.result.hostBreakdown = s.trace->hostBreakdown().rows();
  return {};
}

constexpr Stage<RunState> kStages[] = {
    {"validate", 1, validateStage},   {"load-pef", 5, loadPefStage}, {"load-data", 5, loadDataStage},
    {"open-store", 1, openStoreStage}, {"train", 70, trainStage},    {"evaluate", 15, evaluateStage},
    {"decode", 15, decodeStage},       {"write-trace", 3, writeTraceStage},
};

}  // namespace

std::span<const Stage<RunState>> runStages() { return kStages; }

}  // namespace dfc::driver
