#include "driver/run/MeasurePerformance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string_view>

#include "driver/compile/StoreRecords.h"
#include "onnx/ImportContext.h"
#include "onnx/InputShapes.h"
#include "pef/Pef.h"
#include "runtime/Executor.h"
#include "support/FileUtil.h"
#include "support/JsonWriter.h"
#include "support/SafePath.h"

namespace dfc::driver {
namespace fs = std::filesystem;

namespace {

constexpr int64_t kMaxSteps = 10'000'000;

Status checkOptions(const MeasureOptions& o) {
  if (o.pefPath.empty()) return makeError("--pef is required");
  if (o.steps < 1 || o.steps > kMaxSteps) return makeError("--steps must be in 1.." + std::to_string(kMaxSteps));
  if (o.warmup < 0 || o.warmup > kMaxSteps) return makeError("--warmup must be in 0.." + std::to_string(kMaxSteps));
  return {};
}

// Synthetic inputs: the learning rate is the PEF's default; integer inputs
// (labels, token ids) are drawn below the logits' last dimension (classes or
// vocabulary), so every index is valid; floats are uniform in [-1, 1].
Status feedSyntheticInputs(const pef::Pef& pef, runtime::Executor& exec, uint64_t seed) {
  const ir::Graph& g = pef.graph;
  const ir::ValueId logits = g.findValue(pef.meta.logitsOutput);
  if (logits == ir::kNoValue)
    return makeError("PEF meta names logits '" + pef.meta.logitsOutput + "' that the graph lacks");
  const ir::Shape& logitsShape = g.value(logits).type.shape;
  const int64_t classes = logitsShape.empty() ? 1 : std::max<int64_t>(1, logitsShape.back());
  std::mt19937_64 rng(seed);
  for (ir::ValueId id : g.inputs) {
    const ir::Value& v = g.value(id);
    ir::Tensor t(v.type);
    if (v.name == pef.meta.lrInput && v.type.dtype == ir::DType::F32) {
      t = ir::Tensor::scalarF32(static_cast<float>(pef.meta.defaultLr));
    } else if (pef.meta.kvCacheLen > 0 && v.name == pef.meta.positionInput) {
      t.data<int64_t>()[0] = pef.meta.kvCacheLen - 1;  // a decode step at its last position: the whole cache read
    } else if (v.type.dtype == ir::DType::F32) {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (float& x : t.span<float>()) x = d(rng);
    } else if (v.type.dtype == ir::DType::I64) {
      std::uniform_int_distribution<int64_t> d(0, classes - 1);
      for (int64_t& x : t.span<int64_t>()) x = d(rng);
    } else if (v.type.dtype == ir::DType::I32) {
      std::uniform_int_distribution<int32_t> d(0, static_cast<int32_t>(std::min<int64_t>(classes, INT32_MAX) - 1));
      for (int32_t& x : t.span<int32_t>()) x = d(rng);
    }  // bool inputs stay false
    DFC_TRY(exec.setInput(id, t));
  }
  return {};
}

// The cost model's latency of one step: the sections a step runs, in schedule
// order; with gradient accumulation over K steps, the optimizer's run one step in K.
double estimatedStepUs(const pef::Pef& pef, bool forwardOnly) {
  int64_t accumulation = 1;
  for (const ir::Node& n : pef.graph.nodes)
    if (n.role == ir::NodeRole::Accumulate) accumulation = std::max(accumulation, n.intAttr("accumulation_steps", 1));
  double us = 0;
  for (int id : pef.plan.schedule) {
    const partition::Section& s = pef.plan.sections.at(static_cast<size_t>(id));
    if (forwardOnly && !ir::roleInfo(s.type).inEvaluation) continue;
    us += s.type == ir::NodeRole::Optimizer ? s.estimate.latencyUs / static_cast<double>(accumulation)
                                            : s.estimate.latencyUs;
  }
  return us;
}

void summarize(MeasureResult& r) {
  const double totalMs = std::accumulate(r.stepMs.begin(), r.stepMs.end(), 0.0);
  r.meanMs = totalMs / static_cast<double>(r.stepMs.size());
  r.medianMs = percentile(r.stepMs, 50);
  r.p90Ms = percentile(r.stepMs, 90);
  r.p99Ms = percentile(r.stepMs, 99);
  r.samplesPerSecond = static_cast<double>(r.batch) * static_cast<double>(r.steps) / std::max(totalMs / 1e3, 1e-12);
  r.estSamplesPerSecond = r.estStepMs > 0 ? static_cast<double>(r.batch) / (r.estStepMs / 1e3) : 0;
}

// The run and its figures in the store; a store that cannot be written leaves a note, not an error.
void record(const MeasureOptions& o, MeasureResult& r) {
  if (o.dbPath == "-") return;
  auto store = openStore(o.dbPath);
  if (!store) {
    r.storeNote = store.error().message();
    return;
  }
  profile::RunRecord rec;
  const std::string pefPath = fs::absolute(o.pefPath).lexically_normal().string();
  if (auto compileId = store->latestCompileForPef(pefPath)) rec.compileId = *compileId;
  rec.pefPath = pefPath;
  rec.args = joinArgs(o.args);
  rec.startedAt = support::isoTimestampUtc();
  rec.status = "running";
  auto id = store->beginRun(rec);
  if (!id) {
    r.storeNote = id.error().message();
    return;
  }
  std::vector<profile::MetricRecord> metrics;
  for (size_t i = 0; i < r.stepMs.size(); ++i)
    metrics.push_back({static_cast<int64_t>(i + 1), 0, "step_ms", r.stepMs[i]});
  const int64_t last = r.steps;
  for (const auto& [name, value] : {std::pair{"samples_per_s", r.samplesPerSecond},
                                    {"latency_median_ms", r.medianMs},
                                    {"latency_mean_ms", r.meanMs},
                                    {"latency_p90_ms", r.p90Ms},
                                    {"latency_p99_ms", r.p99Ms},
                                    {"est_samples_per_s", r.estSamplesPerSecond},
                                    {"est_step_ms", r.estStepMs}})
    metrics.push_back({last, 0, name, value});
  for (profile::MetricRecord& m : opProfileMetrics(r.ops, last)) metrics.push_back(std::move(m));
  Status st = store->addMetrics(*id, metrics);
  if (st) st = store->finishRun(*id, "finished", std::nullopt, std::nullopt);
  if (!st)
    r.storeNote = st.error().message();
  else
    r.runId = *id;
}

}  // namespace

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank)), hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

namespace {
constexpr std::string_view kOpMs = "op_ms:", kOpCalls = "op_calls:";
}  // namespace

std::vector<profile::MetricRecord> opProfileMetrics(const std::vector<OpTime>& ops, int64_t step) {
  std::vector<profile::MetricRecord> out;
  for (const OpTime& op : ops) {
    const std::string key = op.family + ":" + op.label;
    out.push_back({step, 0, std::string(kOpMs) + key, op.msPerStep});
    out.push_back({step, 0, std::string(kOpCalls) + key, op.callsPerStep});
  }
  return out;
}

std::vector<OpTime> opProfileFromMetrics(const std::vector<profile::MetricRecord>& metrics) {
  std::map<std::string, OpTime> byKey;
  for (const profile::MetricRecord& m : metrics) {
    const bool ms = m.name.starts_with(kOpMs), calls = m.name.starts_with(kOpCalls);
    if (!ms && !calls) continue;
    const std::string key = m.name.substr((ms ? kOpMs : kOpCalls).size());
    const size_t colon = key.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == key.size()) continue;  // not one of ours
    OpTime& op = byKey[key];
    op.family = key.substr(0, colon);
    op.label = key.substr(colon + 1);
    (ms ? op.msPerStep : op.callsPerStep) = m.value;
  }
  std::vector<OpTime> out;
  for (auto& entry : byKey) out.push_back(std::move(entry.second));
  std::stable_sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.msPerStep > b.msPerStep; });
  return out;
}

namespace {

// Each --input-shape against the PEF's input of that name.
Status checkInputShapes(const pef::Pef& pef, const MeasureOptions& o) {
  for (const auto& [name, shape] : o.inputShapes) {
    ir::ValueId v = ir::kNoValue;
    for (ir::ValueId in : pef.graph.inputs)
      if (pef.graph.value(in).name == name || pef.graph.value(in).name == onnx::sanitizeName(name)) v = in;
    if (v == ir::kNoValue) return makeError(o.pefPath + ": --input-shape " + name + ": the PEF has no input '" + name + "'");
    const ir::Shape& have = pef.graph.value(v).type.shape;
    if (have != shape)
      return makeError(o.pefPath + ": --input-shape " + name + "=" + onnx::formatShape(shape) + ": the PEF was compiled for " +
                       name + "=" + onnx::formatShape(have) + " (compile with --input-shape " + name + "=" +
                       onnx::formatShape(shape) + " to measure that shape)");
  }
  return {};
}

}  // namespace

Expected<MeasureResult> measurePerformance(const MeasureOptions& o) {
  DFC_TRY(checkOptions(o));
  MeasureResult r;
  fs::path pefPath(o.pefPath);
  r.summaryPath = o.summaryPath.empty()
                      ? (pefPath.parent_path() / (pefPath.stem().string() + "_performance.json")).string()
                      : o.summaryPath;
  if (auto target = support::checkOutputFile(r.summaryPath, "--summary"); !target) return target.error();
  auto pef = pef::readPef(o.pefPath);
  if (!pef) return pef.error();
  DFC_TRY(checkInputShapes(*pef, o));
  runtime::ExecutorOptions eo;
  eo.threads = o.threads;
  eo.convAlgo = o.convAlgo;
  eo.profileKernels = o.opProfile;
  auto exec = runtime::Executor::create(pef->graph, pef->plan, eo);
  if (!exec) return exec.error().withContext(o.pefPath);
  DFC_TRY(feedSyntheticInputs(*pef, *exec, o.seed));
  const bool forwardOnly = !pef->meta.inference && o.inference;
  r.pefName = pef->meta.pefName;
  r.inference = pef->meta.inference || o.inference;
  r.batch = pef->meta.batchSize;
  r.steps = o.steps;
  r.warmup = o.warmup;
  r.estStepMs = estimatedStepUs(*pef, forwardOnly) / 1e3;
  for (int64_t i = 0; i < o.warmup; ++i) DFC_TRY(exec->step(forwardOnly));
  exec->resetKernelProfile();
  r.stepMs.reserve(static_cast<size_t>(o.steps));
  for (int64_t i = 0; i < o.steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    DFC_TRY(exec->step(forwardOnly));
    r.stepMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  summarize(r);
  for (const runtime::KernelTime& t : exec->kernelProfile()) {
    const double steps = static_cast<double>(o.steps);
    r.ops.push_back({t.label, t.family, static_cast<double>(t.calls) / steps, t.totalUs / 1e3 / steps});
    r.opProfiledMs += t.totalUs / 1e3 / steps;
  }
  DFC_TRY(support::writeFileAtomic(r.summaryPath, measureSummaryJson(r)));
  record(o, r);
  return r;
}

std::string measureSummaryJson(const MeasureResult& r) {
  support::JsonWriter w;
  w.beginObject()
      .field("pef_name", r.pefName)
      .field("mode", r.inference ? "inference" : "training")
      .field("batch_size", r.batch)
      .field("steps", r.steps)
      .field("warmup_steps", r.warmup)
      .field("samples_per_s", r.samplesPerSecond)
      .field("latency_mean_ms", r.meanMs)
      .field("latency_median_ms", r.medianMs)
      .field("latency_p90_ms", r.p90Ms)
      .field("latency_p99_ms", r.p99Ms)
      .field("est_step_ms", r.estStepMs)
      .field("est_samples_per_s", r.estSamplesPerSecond);
  w.key("step_ms").beginArray();
  for (double ms : r.stepMs) w.value(ms);
  w.endArray();
  if (!r.ops.empty()) {
    w.key("op_profile").beginArray();
    for (const OpTime& op : r.ops)
      w.beginObject()
          .field("label", op.label)
          .field("family", op.family)
          .field("calls_per_step", op.callsPerStep)
          .field("ms_per_step", op.msPerStep)
          .endObject();
    w.endArray();
  }
  w.endObject();
  return w.take();
}

}  // namespace dfc::driver
