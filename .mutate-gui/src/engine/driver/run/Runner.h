#pragma once
// run(): the entry point shared by `dfc run` and the desktop app. Loads a PEF,
// trains (or evaluates) on an IDX dataset section by section, writes the chrome
// trace and records the run in the store: a table of stages
// (driver/run/RunStages.cpp) run by one loop.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

<<<<<<< HEAD:engine/driver/run/Runner.h
#include "driver/report/HostBreakdown.h"
=======
#include "driver/HostBreakdown.h"
#include "driver/RunInputs.h"
>>>>>>> issue-33-run:engine/driver/Runner.h
#include "runtime/ConvAlgo.h"
#include "support/Error.h"

namespace dfc::dist {
class Communicator;
}

namespace dfc::driver {

struct RunOptions {
  std::string pefPath;
  int epochs = 1;
  std::optional<double> learningRate;  // default: the PEF's
  std::string dataFolder;              // "" = the task's default (Fashion-MNIST, or Debian's license texts)
  bool inference = false;              // evaluate only, even with a training PEF
  std::string tracePath;               // default: <pef dir>/<pef-name>_chrome_tracing_report.json
  std::string dbPath;                  // "" = default path, "-" = don't record
  int64_t trainLimit = 0;              // > 0: use only the first N training samples (images or token windows)
  int64_t testLimit = 0;               // > 0: use only the first N test samples
  int64_t logEvery = 100;              // print a loss line every N steps (and the last)
  uint64_t seed = 1;                   // shuffling; --input NAME=random data (driver/RunInputs.h)
  int threads = 0;                     // runtime thread pool (GEMMs split over it too); <= 0: the machine's hardware threads
  bool deterministic = false;          // --deterministic: work cut as for kDeterministicSplitWidth threads, same bits on any pool
  int rank = 0;                        // this process's rank (set from the communicator with dataParallel): trace pid rank + 1
  int64_t traceFrom = 0;               // the trace records section calls of steps [traceFrom, traceTo) (0-based,
  int64_t traceTo = -1;                // training and evaluation steps counted together); traceTo < 0: to the end
  // --data-parallel: join the ranks (MPI under mpirun; a world of one without
  // it), train on this rank's shard of each global batch, average gradients.
  bool dataParallel = false;
  dist::Communicator* communicator = nullptr;  // tests: an in-process group's rank; null: MPI or a world of one
  std::string allreduce = "mpi";  // --allreduce: mpi, ring, tree or 2d-ring (dist/Allreduce.h)
  runtime::ConvAlgoRequest convAlgo = runtime::ConvAlgoRequest::Auto;  // --conv-algo (runtime/ConvAlgo.h)
  int ranksPerHost = 0;           // --ranks-per-host: 2d-ring's ranks per host (0: as MPI_COMM_TYPE_SHARED finds them)
  // dfc run --decode (driver/run/DecodeRun.h): generate tokens with a decode PEF
  // (prefill token by token through the step, then maxNewTokens picked tokens)
  // instead of training and evaluating. `seed` seeds the sampling.
  bool decode = false;
  std::vector<int64_t> promptTokens;  // --prompt-tokens
  std::string promptText;             // --prompt: its bytes are the tokens (byte-level vocabularies)
  int64_t maxNewTokens = 16;
  double temperature = 0;             // 0: greedy (argmax)
  // --draft-pef: greedy speculative decoding (driver/run/SpeculativeRun.h); the
  // PEF run takes K + 1 tokens a step and checks this one-token step's K drafts.
  std::string draftPefPath;
  // --input (with --inference): one forward step on these inputs instead of a
  // data set, every graph input bound (driver/RunInputs.h); --output-dir: where
  // the outputs go as NAME.npy ("" = not written).
  std::vector<InputBinding> inputs;
  std::string outputDir;
  std::vector<std::string> args;
  // Where the run stands: the stage and the share of the whole run done (0..1,
  // by the stages' weights; training steps move it within "train"). Optional.
  std::function<void(const std::string& stage, double fraction)> progress;
};

// "A:B", "A:" or ":B" (--trace-steps) into RunOptions::traceFrom/traceTo; errors name `flag`.
Status parseTraceSteps(const std::string& flag, const std::string& text, RunOptions& options);

struct RunResult {
  int64_t runId = 0;
  std::vector<HostPhaseTotal> hostBreakdown;  // where host time went (driver/report/HostBreakdown.h; rank 0)
  std::string tracePath;
  int64_t steps = 0;       // training steps
  int64_t evalSteps = 0;   // forward-only evaluation steps
  int64_t sectionCalls = 0;
  int threads = 0;         // the runtime pool's
  int splitWidth = 0;      // --deterministic: threads the work was cut for (0: the pool's)
  std::optional<double> firstLoss;
  std::optional<double> finalLoss;
  double testAccuracy = 0;
  int64_t testSamples = 0;
  double trainSeconds = 0;
  double samplesPerSecond = 0;
  double measuredSectionUs = 0;  // sum of measured section time
  double estimatedSectionUs = 0; // sum of estimated chip latency for the same calls
  std::vector<std::pair<std::string, double>> stageMs;  // per stage wall time (runStageNames), in order
  std::vector<NamedTensor> outputs;                     // --input: the graph's outputs, in order
  std::vector<std::string> outputFiles;                 // --output-dir: the .npy files written
  std::string storeNote;         // non-empty: the run finished but its store record is missing or partial
  // Data parallel (world of 1 otherwise).
  int worldSize = 1;
  int rank = 0;
  std::vector<double> rankSamplesPerSecond;  // per rank (rank 0's result only)
  double allreduceUs = 0;        // this rank's measured time in reduce sections
  double allreduceEstUs = 0;     // the cost model's estimate for the same calls
  double allreduceBytes = 0;     // gradient bytes averaged
  int64_t allreduceCalls = 0;
  std::string allreduceAlgorithm;  // as the communicator describes it: "ring", "2d-ring (2 hosts x 2 ranks)"
  struct AllreduceBucket {         // one reduce section: its calls measured beside the algorithm's estimate
    int sectionId = -1;
    std::string section;
    double bytes = 0;              // gradient bytes per call
    int64_t calls = 0;
    double measuredUs = 0;         // all calls together
    double estUs = 0;              // per call, the cost model's for the algorithm run
  };
  std::vector<AllreduceBucket> allreduceBuckets;
  bool weightsChecked = false;   // true: every rank's weights hashed equal after training
  std::string dataParallelNote;  // e.g. "--data-parallel without mpirun: world size 1"
  // dfc run --decode: the prompt, each sequence's generated tokens, host times.
  std::vector<int64_t> promptTokens;
  std::vector<std::vector<int64_t>> generated;  // per sequence of the batch
  bool byteLevel = false;        // the vocabulary is bytes: bytesText() shows the tokens as text
  int64_t kvCacheLen = 0;
  double prefillMs = 0;          // the prompt through the step, token by token
  double decodeMs = 0;           // the steps after the prompt
  double tokensPerSecond = 0;    // generated tokens (all sequences) per second of decode steps
  // --draft-pef: K draft tokens per verification, and how they fared.
  int64_t draftTokens = 0;       // K
  int64_t verifications = 0;     // target steps after the prompt
  int64_t drafted = 0, accepted = 0;  // draft tokens proposed and accepted
  int64_t rejected = 0;          // verifications that ended at a rejected draft
  // The per-token acceptance probability (Leviathan et al.'s alpha, what
  // `dfc estimate --acceptance` takes): accepted / (accepted + rejected), the
  // drafts the target checked; drafts after a rejection were never checked.
  double acceptance() const {
    return accepted + rejected > 0 ? static_cast<double>(accepted) / static_cast<double>(accepted + rejected) : 0.0;
  }
  double draftMs = 0, verifyMs = 0;   // host time in the draft's steps and in the target's
  double estUsPerToken = 0;      // the cost model's chip latency of one step
};

// Each progress line ("Epoch [1/1], Step [100/1875], Loss: 0.6123") goes to `log`.
using LogFn = std::function<void(const std::string&)>;

// `cancel` (may be null) is polled between stages and between steps.
Expected<RunResult> run(const RunOptions& options, const LogFn& log = {},
                        const std::atomic<bool>* cancel = nullptr);

// "validate", "load-pef", ..., "write-trace": the stages of a run in order.
std::vector<std::string> runStageNames();

}  // namespace dfc::driver
