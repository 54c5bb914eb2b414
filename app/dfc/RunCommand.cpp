#include <cstdio>
#include <limits>
#include <optional>

#include "ArgParser.h"
#include "Commands.h"
#include "DecodeFlags.h"
#include "TerminalProgress.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"
#include "support/Logging.h"

namespace dfc::cli {

namespace {

ArgParser runFlags() {
  ArgParser p("run", "Run a PEF section by section on the host CPU: train, then report test accuracy.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF to run (required)"});
  p.add({{"-b", "--batch-size"}, "N", 1, "must equal the PEF's compiled batch size"});
  p.add({{"-e", "--num-epochs"}, "N", 1, "training epochs (default 1)"});
  p.add({{"--lr"}, "X", 1, "learning rate (default: the PEF's)"});
  p.add({{"--data-folder"}, "DIR", 1, "IDX dataset folder (default /usr/share/datasets/fashion-mnist), or for language models a text file/folder (default /usr/share/common-licenses)"});
  p.add({{"--inference"}, "", 0, "evaluate only (forward sections), even with a training PEF"});
  p.add({{"--input"},
         "NAME=FILE|NAME=random",
         1,
         "with --inference: run an inference PEF of any model once on these inputs instead of a data set "
         "(repeatable; every graph input bound): FILE is a .npy or an ONNX TensorProto .pb of the input's exact type "
         "and shape; random draws f32 in [0, 1), integers in [0, 4), bools (--seed); prints each output's type and "
         "min/max/mean/first values"});
  p.add({{"--output-dir"},
         "DIR",
         1,
         "with --input: write each output as DIR/NAME.npy (bytes other than letters, digits, '_', '-' and '.' in "
         "NAME written %XX); DIR is made if missing; a file there is replaced only if regular"});
  p.add({{"--trace"}, "FILE", 1, "chrome trace output (default <pef dir>/<pef-name>_chrome_tracing_report.json); "
                                  "a name ending in .gz writes it gzip-compressed (Perfetto and dfstudio read it)"});
  p.add({{"--trace-steps"}, "A:B", 1, "trace only the section calls of steps A to B-1 (0-based, training and evaluation "
                                      "steps counted together; A: to the end, :B the first B); the run store keeps every call"});
  p.add({{"--db"}, "FILE", 1, "run store (default $XDG_DATA_HOME/dataflow-studio/runs.sqlite; '-' = none)"});
  p.add({{"--train-limit"}, "N", 1, "use only the first N training samples"});
  p.add({{"--test-limit"}, "N", 1, "use only the first N test samples"});
  p.add({{"--log-every"}, "N", 1, "print the loss every N steps (default 100)"});
  p.add({{"--threads"}, "N", 1, "host threads for the runtime's kernels, GEMMs included (default: all hardware threads; --data-parallel: shared among the ranks on one host)"});
  p.add({{"--deterministic"}, "", 0,
         "the same numbers bit for bit whatever --threads is: GEMMs are cut into the pieces 4 threads would take "
         "(default: cut for --threads; the GEMM library may round pieces differently, so runs on different thread "
         "counts agree within rounding); a little slower on 1 thread"});
  p.add({{"-v", "--verbose"}, "", 0, "more detail"});
  p.add({{"--debug"}, "", 0, "debug logging"});
  p.add({{"--log-dir"}, "DIR", 1, "write warnings and errors to DIR/dfc_warnings.log"});
  addMaxMemoryFlag(p);
  addConvAlgoFlag(p, "how the host runs convolutions");
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  p.add({{"--data-parallel"}, "", 0,
         "train one replica per MPI rank (mpirun -np N dfc run --data-parallel ...): each rank takes its shard of a "
         "global batch of N x the compiled batch; gradients are averaged; rank 0 prints, evaluates and records"});
  p.add({{"--allreduce"}, "NAME", 1,
         "--data-parallel: how gradients are averaged: mpi (MPI_Allreduce, the default), ring (reduce-scatter + "
         "all-gather over point-to-point messages), tree (double binary tree, pipelined in chunks) or 2d-ring (rings "
         "inside each host, then across hosts); the summary prints each bucket's time beside the cost model's estimate"});
  p.add({{"--ranks-per-host"}, "N", 1,
         "--allreduce 2d-ring: treat each N consecutive ranks as one host (default: the hosts MPI reports)"});
  addDecodeRunFlags(p);
  return p;
}

void printDataParallelSummary(const driver::RunResult& r) {
  std::string rates;
  for (size_t rank = 0; rank < r.rankSamplesPerSecond.size(); ++rank)
    rates += (rank ? ", " : "") + std::to_string(static_cast<long long>(r.rankSamplesPerSecond[rank] + 0.5));
  const double perCall = r.allreduceCalls ? 1.0 / static_cast<double>(r.allreduceCalls) : 0.0;
  std::printf("Data parallel: %d ranks (samples/s per rank: %s); %lld allreduces, %.1f MB, measured %.1f us per call "
              "(estimated %.1f us); weights identical on every rank: %s\n",
              r.worldSize, rates.c_str(), static_cast<long long>(r.allreduceCalls), r.allreduceBytes / 1e6,
              r.allreduceUs * perCall, r.allreduceEstUs * perCall, r.weightsChecked ? "yes" : "not checked");
  for (const auto& b : r.allreduceBuckets)
    std::printf("  allreduce %s, section %d %s (%.1f KB): measured %.1f us per call over %lld calls, estimated %.1f us\n",
                r.allreduceAlgorithm.c_str(), b.sectionId, b.section.c_str(), b.bytes / 1e3,
                b.calls ? b.measuredUs / static_cast<double>(b.calls) : 0.0, static_cast<long long>(b.calls), b.estUs);
}

// --input, --output-dir and --seed (shared with --decode) into RunOptions.
Status inputOptionsFrom(const ArgParser& p, driver::RunOptions& o) {
  if (p.has("--output-dir") && !p.has("--input")) return makeError("--output-dir needs --input");
  if (!p.has("--input")) return {};
  if (!p.has("--inference")) return makeError("--input needs --inference (the run evaluates the PEF once on them)");
  for (const char* flag : {"--data-folder", "--train-limit", "--test-limit", "--data-parallel"})
    if (p.has(flag)) return makeError(std::string("--input replaces the data set: drop ") + flag);
  for (const std::string& text : p.getAll("--input")) {
    auto binding = driver::parseInputBinding(text);
    if (!binding) return binding.error();
    o.inputs.push_back(std::move(*binding));
  }
  o.outputDir = p.get("--output-dir");
  if (p.has("--seed")) {
    auto seed = parseInt("--seed", p.get("--seed"));
    if (!seed) return seed.error();
    if (*seed < 0) return makeError("--seed " + p.get("--seed") + ": expected a number from 0");
    o.seed = static_cast<uint64_t>(*seed);
  }
  return {};
}

// The flags into RunOptions (and -b into `batch`, checked against the PEF
// later); an exit status when one is bad (its line already printed).
std::optional<int> runOptionsFrom(const ArgParser& p, driver::RunOptions& o, int64_t& batch) {
  o.pefPath = p.get("--pef");
  if (o.pefPath.empty()) return usageError("run: -p/--pef is required");
  auto intFlag = [&](const char* name, auto& out) -> bool {
    if (!p.has(name)) return true;
    auto v = parseInt(name, p.get(name));
    using T = std::remove_reference_t<decltype(out)>;
    if (v && (*v < std::numeric_limits<T>::min() || *v > std::numeric_limits<T>::max()))
      v = makeError(std::string(name) + " " + clipped(p.get(name)) + ": out of range");
    if (!v) {
      reportError(v.error());
      return false;
    }
    out = static_cast<T>(*v);
    return true;
  };
  if (!intFlag("--num-epochs", o.epochs) || !intFlag("--train-limit", o.trainLimit) ||
      !intFlag("--test-limit", o.testLimit) || !intFlag("--log-every", o.logEvery) || !intFlag("--batch-size", batch) ||
      !intFlag("--threads", o.threads))
    return 2;
  // Given, a limit or batch size is a count: 0 or -1 is a mistake, not "no limit".
  for (const char* flag : {"--train-limit", "--test-limit", "--batch-size"})
    if (p.has(flag) && parseInt(flag, p.get(flag)).value() < 1)
      return usageError(std::string(flag) + " " + p.get(flag) + ": expected at least 1");
  if (p.has("--threads") && (o.threads < 1 || o.threads > 1024))
    return usageError("--threads " + p.get("--threads") + ": expected a thread count from 1 to 1024");
  if (p.has("--lr")) {
    auto lr = parseDouble("--lr", p.get("--lr"));
    if (!lr) return reportError(lr.error());
    o.learningRate = *lr;
  }
  if (p.has("--data-folder")) o.dataFolder = p.get("--data-folder");
  o.inference = p.has("--inference");
  o.deterministic = p.has("--deterministic");
  o.dataParallel = p.has("--data-parallel");
  if (p.has("--allreduce")) o.allreduce = p.get("--allreduce");
  if (!intFlag("--ranks-per-host", o.ranksPerHost)) return 2;
  if (auto rc = applyConvAlgo(p, o.convAlgo)) return *rc;
  if (p.has("--ranks-per-host") && o.ranksPerHost < 1)
    return usageError("--ranks-per-host " + p.get("--ranks-per-host") + ": expected at least 1");
  o.tracePath = p.get("--trace");
  if (p.has("--trace-steps"))
    if (Status st = driver::parseTraceSteps("--trace-steps", p.get("--trace-steps"), o); !st) return reportError(st.error());
  o.dbPath = p.get("--db");
  if (Status st = decodeOptionsFrom(p, o); !st) return reportError(st.error());
  if (Status st = inputOptionsFrom(p, o); !st) return reportError(st.error());
  return std::nullopt;
}

// -b must be the PEF's own batch size (its shapes are fixed at compile).
std::optional<int> checkBatchSize(const std::string& pefPath, int64_t batch) {
  if (batch == 0) return std::nullopt;
  auto pef = pef::readPef(pefPath);
  if (!pef) return reportError(pef.error());
  if (pef->meta.batchSize != batch)
    return usageError(
        "-b " + std::to_string(batch) + ": " + pefPath + " was compiled for batch size " +
        std::to_string(pef->meta.batchSize) +
        (pef->meta.worldSize > 0 ? " per rank (with --data-parallel the global batch is ranks x that)" : "") +
        " (recompile with -b " + std::to_string(batch) + ")");
  return std::nullopt;
}

void printRunSummary(const driver::RunOptions& o, const driver::RunResult& result) {
  if (!result.dataParallelNote.empty()) std::printf("Note: %s\n", result.dataParallelNote.c_str());
  if (result.worldSize > 1) printDataParallelSummary(result);
  if (o.decode)
    printDecodeSummary(result);
  else if (!o.inputs.empty())
    std::printf(
        "Summary: 1 forward step on the given inputs (seed %llu for random ones), %lld section calls on %d "
        "thread%s; measured section time %.3f ms, estimated chip time %.3f us\n",
        static_cast<unsigned long long>(o.seed), static_cast<long long>(result.sectionCalls), result.threads,
        result.threads == 1 ? "" : "s", result.measuredSectionUs / 1e3, result.estimatedSectionUs);
  else
    std::printf(
        "Summary: %lld training steps, %lld evaluation steps, %lld section calls, %.0f samples/s on %d thread%s%s; "
        "measured section time %.1f ms, estimated chip time %.1f ms\n",
        static_cast<long long>(result.steps), static_cast<long long>(result.evalSteps),
        static_cast<long long>(result.sectionCalls), result.samplesPerSecond, result.threads,
        result.threads == 1 ? "" : "s", result.splitWidth > 0 ? " (deterministic: work cut as for 4 threads)" : "",
        result.measuredSectionUs / 1e3, result.estimatedSectionUs / 1e3);
  std::printf("Trace: %s\n", result.tracePath.c_str());
  if (!result.storeNote.empty())
    std::printf("Note: %s\n", result.storeNote.c_str());
  else if (result.runId)
    std::printf("Run id %lld in the run store\n", static_cast<long long>(result.runId));
}

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  ArgParser p = runFlags();
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(p.has("--debug")).c_str(), stdout);
    return 0;
  }
  if (!p.positional().empty()) return usageError("run: unexpected argument '" + p.positional().front() + "'");
  if (auto flag = p.notImplementedFlag()) return usageError(*flag + " is not implemented yet");
  if (auto rc = applyMaxMemory(p)) return *rc;
  support::LogOptions log{p.has("--verbose"), p.has("--debug"), p.get("--log-dir")};
  if (auto err = support::setupLogging(log); !err.empty()) return usageError(err);

  driver::RunOptions o;
  int64_t batch = 0;
  if (auto rc = runOptionsFrom(p, o, batch)) return *rc;
  o.args = {"dfc", "run"};
  o.args.insert(o.args.end(), args.begin(), args.end());
  if (auto rc = checkBatchSize(o.pefPath, batch)) return *rc;

  // With -v or --debug the log lines are the progress; otherwise one line on a terminal (TerminalProgress.h).
  std::optional<TerminalProgress> bar;
  if (!log.verbose && !log.debug) {
    bar.emplace("run");
    o.progress = [&bar](const std::string& stage, double fraction) { bar->update(stage, fraction); };
  }
  auto result = driver::run(o, [&bar](const std::string& line) {
    if (bar) bar->clear();  // a loss line on a line of its own, the progress redrawn below it
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  });
  bar.reset();
  if (!result) return reportError(result.error());
  if (result->rank != 0) return 0;  // data parallel: rank 0 reports for every rank
  printRunSummary(o, *result);
  return 0;
}

}  // namespace dfc::cli
