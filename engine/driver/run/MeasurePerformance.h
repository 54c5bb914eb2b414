#pragma once
// measurePerformance(): SambaFlow's measure-performance mode. Loads a PEF,
// runs `warmup` untimed steps and `steps` timed ones on synthetic inputs of
// the PEF's shapes (no dataset, no convergence), and reports throughput and
// per-step latency beside the cost model's chip estimate. The figures go to a
// JSON summary and, as a run with metrics, to the run store.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/Tensor.h"
#include "profile/RunStore.h"
#include "runtime/ConvAlgo.h"
#include "support/Error.h"

namespace dfc::driver {

struct MeasureOptions {
  std::string pefPath;
  int64_t steps = 100;
  int64_t warmup = 10;
  bool inference = false;   // forward sections only, even with a training PEF
  std::string summaryPath;  // default: <pef dir>/<pef-name>_performance.json
  std::string dbPath;       // "" = default path, "-" = don't record
  int threads = 0;          // runtime thread pool; <= 0: the machine's hardware threads
  uint64_t seed = 1;        // synthetic inputs
  bool opProfile = false;   // time every kernel of the timed steps (MeasureResult::ops)
  runtime::ConvAlgoRequest convAlgo = runtime::ConvAlgoRequest::Auto;  // --conv-algo (runtime/ConvAlgo.h)
  // --input-shape: the input shapes the caller means to measure. A PEF's shapes
  // are fixed when it is compiled, so each must equal the PEF's input; one that
  // does not is refused naming the compile flag that makes such a PEF.
  std::map<std::string, ir::Shape> inputShapes;
  std::vector<std::string> args;
};

// One kind of kernel in the timed steps (runtime::KernelTime, per step).
struct OpTime {
  std::string label;   // "matmul + bias_add", "gelu", "attention backward (fused)", "state updates"
  std::string family;  // "linalg", "elementwise", ... ("runtime" for state updates)
  double callsPerStep = 0;
  double msPerStep = 0;
};

struct MeasureResult {
  std::string pefName;
  bool inference = false;
  int64_t batch = 0;
  int64_t steps = 0;
  int64_t warmup = 0;
  double samplesPerSecond = 0;
  double meanMs = 0, medianMs = 0, p90Ms = 0, p99Ms = 0;  // per step, host CPU
  double estStepMs = 0;                                   // the cost model's chip latency for one step
  double estSamplesPerSecond = 0;
  std::vector<double> stepMs;  // each timed step
  std::vector<OpTime> ops;     // with MeasureOptions::opProfile: largest first
  double opProfiledMs = 0;     // with opProfile: the mean step's time inside kernels (the rest is between them)
  std::string summaryPath;
  int64_t runId = 0;      // 0: not recorded
  std::string storeNote;  // non-empty: measured, but the store record is missing
};

// The p-th percentile (0..100) of `values` by linear interpolation between ranks; 0 for none.
double percentile(std::vector<double> values, double p);

Expected<MeasureResult> measurePerformance(const MeasureOptions& options);

// An op profile as run-store metrics at `step` ("op_ms:<family>:<label>" and
// "op_calls:<family>:<label>", per step), and back, largest first; a metric
// of another name is skipped.
std::vector<profile::MetricRecord> opProfileMetrics(const std::vector<OpTime>& ops, int64_t step);
std::vector<OpTime> opProfileFromMetrics(const std::vector<profile::MetricRecord>& metrics);

// The JSON summary measurePerformance writes.
std::string measureSummaryJson(const MeasureResult& result);

}  // namespace dfc::driver
