#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ArgParser.h"
#include "Commands.h"
#include "driver/run/MeasurePerformance.h"
#include "onnx/InputShapes.h"
#include "support/Logging.h"

namespace dfc::cli {

namespace {

ArgParser measureFlags() {
  ArgParser p("measure-performance",
              "Throughput and per-step latency of a PEF on the host CPU over many steps of synthetic inputs "
              "(no dataset, no convergence), beside the cost model's chip estimate.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF to measure (required)"});
  p.add({{"--steps"}, "N", 1, "timed steps (default 100)"});
  p.add({{"--warmup"}, "W", 1, "untimed steps first (default 10)"});
  p.add({{"--inference"}, "", 0, "forward sections only, even with a training PEF"});
  p.add({{"--summary"}, "FILE", 1, "JSON summary (default <pef dir>/<pef-name>_performance.json)"});
  p.add({{"--db"}, "FILE", 1, "run store (default $XDG_DATA_HOME/dataflow-studio/runs.sqlite; '-' = none)"});
  p.add({{"--threads"}, "N", 1, "host threads for the runtime's kernels, GEMMs included (default: all hardware threads)"});
  p.add({{"--op-profile"}, "", 0,
         "time every kernel of the timed steps and print the host time per step by kernel (op, or what fusion made "
         "of a group: 'matmul + bias_add', 'elementwise chain (fused)', 'attention forward (fused)') and by op "
         "family, also in the JSON summary; adds two clock reads per kernel"});
  p.add({{"--input-shape"}, "NAME=DxD...", 1,
         "the shape of input NAME (repeatable): checked against the PEF, whose shapes `dfc compile --input-shape` fixes"});
  addConvAlgoFlag(p, "the convolutions' host algorithms");
  p.add({{"--debug"}, "", 0, "debug logging"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  return p;
}

Status readOptions(const ArgParser& p, driver::MeasureOptions& o) {
  o.pefPath = p.get("--pef", p.positional().empty() ? "" : p.positional().front());
  if (o.pefPath.empty()) return makeError("measure-performance: -p/--pef is required");
  for (const auto& [flag, out] : {std::pair{"--steps", &o.steps}, {"--warmup", &o.warmup}}) {
    if (!p.has(flag)) continue;
    auto v = parseInt(flag, p.get(flag));
    if (!v) return v.error();
    *out = *v;
  }
  if (p.has("--threads")) {
    auto v = parseInt("--threads", p.get("--threads"));
    if (!v) return v.error();
    if (*v < 1 || *v > 1024)
      return makeError("--threads " + p.get("--threads") + ": expected a thread count from 1 to 1024");
    o.threads = static_cast<int>(*v);
  }
  if (p.has("--conv-algo")) {
    auto algo = runtime::parseConvAlgoRequest("--conv-algo", p.get("--conv-algo"));
    if (!algo) return algo.error();
    o.convAlgo = *algo;
  }
  o.inference = p.has("--inference");
  o.opProfile = p.has("--op-profile");
  o.summaryPath = p.get("--summary");
  auto shapes = onnx::parseInputShapes(p.getAll("--input-shape"));
  if (!shapes) return shapes.error();
  o.inputShapes = std::move(*shapes);
  o.dbPath = p.get("--db");
  return {};
}

// The step's host time by kernel, then by family, each with its share of the mean step.
void printOpProfile(const driver::MeasureResult& r) {
  const double stepMs = std::max(r.meanMs, 1e-9);
  std::printf("\nhost time by kernel (mean of %lld steps; %.1f%% of the step inside kernels):\n",
              static_cast<long long>(r.steps), 100.0 * r.opProfiledMs / stepMs);
  std::printf("  %10s %7s %10s  %-12s %s\n", "ms/step", "% step", "calls/step", "family", "kernel");
  std::map<std::string, double> byFamily;
  for (const driver::OpTime& op : r.ops) {
    std::printf("  %10.3f %6.1f%% %10.1f  %-12s %s\n", op.msPerStep, 100.0 * op.msPerStep / stepMs, op.callsPerStep,
                op.family.c_str(), op.label.c_str());
    byFamily[op.family] += op.msPerStep;
  }
  std::vector<std::pair<double, std::string>> families;
  for (const auto& [family, ms] : byFamily) families.emplace_back(ms, family);
  std::sort(families.rbegin(), families.rend());
  std::printf("by family:");
  for (size_t i = 0; i < families.size(); ++i)
    std::printf("%s %s %.3f ms (%.1f%%)", i ? "," : "", families[i].second.c_str(), families[i].first,
                100.0 * families[i].first / stepMs);
  std::printf("\n");
}

}  // namespace

int measureCommand(const std::vector<std::string>& args) {
  ArgParser p = measureFlags();
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(p.has("--debug")).c_str(), stdout);
    return 0;
  }
  if (p.positional().size() > 1)
    return usageError("measure-performance: unexpected argument '" + p.positional()[1] + "'");
  if (auto rc = applyMaxMemory(p)) return *rc;
  support::LogOptions log{false, p.has("--debug"), ""};
  if (auto err = support::setupLogging(log); !err.empty()) return usageError(err);
  driver::MeasureOptions o;
  if (auto st = readOptions(p, o); !st) return reportError(st.error());
  o.args = {"dfc", "measure-performance"};
  o.args.insert(o.args.end(), args.begin(), args.end());
  auto r = driver::measurePerformance(o);
  if (!r) return reportError(r.error());
  std::printf("measure-performance: %s (%s, batch %lld), %lld steps after %lld warmup\n", r->pefName.c_str(),
              r->inference ? "inference" : "training", static_cast<long long>(r->batch),
              static_cast<long long>(r->steps), static_cast<long long>(r->warmup));
  std::printf("throughput: %.1f samples/s (host CPU); estimated chip: %.1f samples/s\n", r->samplesPerSecond,
              r->estSamplesPerSecond);
  std::printf("latency per step: median %.3f ms, p90 %.3f ms, p99 %.3f ms, mean %.3f ms; estimated chip: %.3f ms\n",
              r->medianMs, r->p90Ms, r->p99Ms, r->meanMs, r->estStepMs);
  if (o.opProfile) printOpProfile(*r);
  std::printf("Summary: %s\n", r->summaryPath.c_str());
  if (!r->storeNote.empty())
    std::printf("Note: the run store was not written: %s\n", r->storeNote.c_str());
  else if (r->runId)
    std::printf("Run id %lld in the run store\n", static_cast<long long>(r->runId));
  return 0;
}

}  // namespace dfc::cli
