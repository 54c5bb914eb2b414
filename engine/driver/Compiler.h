#pragma once
// compile(): the entry point shared by `dfc compile` and the desktop app.
// model -> (autograd) -> verify -> decompose/map -> PEF, recorded in the run store.
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::driver {

struct CompileOptions {
  std::string model;                 // zoo name, or path to a .dfir file
  std::string pefName;               // default: the model name
  std::string outputFolder;          // default: ./out/<pef-name>
  bool inference = false;            // forward only; no loss, gradients or optimizer
  int64_t batchSize = 32;
  partition::OptLevel level = partition::OptLevel::O3;
  std::string o1RuleList;            // -o1: built-in fusion rule list name or YAML file ("": the mode's default)
  // --compiler-mode: "" (generic) or "nlp" (transformers; partition/CompilerMode.h lists what it changes:
  // -o1 rule list `nlp`, -o3 hypersections on, -o3 attention blocks kept within one section). Else an error.
  std::string compilerMode;
  bool enableHypersection = false;     // -o3: compile hyperfunctions independently and dedupe
  // false: compile every hypersection instance again (same result, more time);
  // bench_hypersections measures the saving with it. Not a dfc flag.
  bool reuseHypersections = true;
  std::string arch = "native";       // preset name, "native" or a YAML file
  int nChips = 1;                    // --n-chips 1..8: sections may span chips (PCIe cost)
  int numTiles = 0;                  // --num-tiles 1|2|4|8 per chip (0: all)
  std::vector<std::string> scalingFactors;  // --resources-scaling-factors: 3 or 4 values (empty: all 1)
  std::map<std::string, int64_t> modelParams;  // zoo model flags: num_layers, hidden_size, num_heads, seq_len, ...
  std::string optimizer = "momentum";  // sgd | momentum | adam
  double learningRate = 0.01;        // default stored in the PEF; `run --lr` overrides
  uint64_t seed = 42;                // weight initialization
  bool debug = false;                // dump the IR after each stage into the output folder
  std::string dbPath;                // run store ("" = default path, "-" = don't record)
  std::vector<std::string> args;     // the command line, recorded in the PEF and the store
};

struct CompileProgress {
  std::string stage;  // "frontend", "autograd", "passes", "verify", "decompose", "place", "write-pef", "record"
  int index = 0;
  int total = 0;
};

struct CompileResult {
  std::string pefPath;
  std::string logPath;
  int64_t compileId = 0;  // 0 if not recorded
  int numNodes = 0;
  int numSections = 0;
  int numForward = 0, numBackward = 0, numOptimizer = 0;
  int64_t numParams = 0;   // parameter elements
  double estLatencyUs = 0; // sum over the schedule
  double compileMs = 0;
  int64_t placedHops = 0;     // total hops of all placed bitfiles
  int64_t rowMajorHops = 0;   // the same kernel graphs placed naively, row-major
  int64_t routedHops = 0;     // the placed edges routed over the network (>= placedHops: detours)
  int overusedLinks = 0;      // network links left over capacity after routing (0: all legal)
  int numBitfiles = 0;
  int hypersectionsUnique = 0;         // distinct compiled hypersections in the plan
  int hypersectionInstances = 0;       // sections that are instances of them
  double compileMsSavedEstimate = 0;   // time reuse of per-hypersection results saved
  std::vector<std::pair<std::string, double>> stageMs;  // per stage wall time
};

using ProgressFn = std::function<void(const CompileProgress&)>;

// `cancel` (may be null) is polled between stages; a cancelled compile returns an error and writes nothing.
Expected<CompileResult> compile(const CompileOptions& options, const ProgressFn& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

Expected<partition::OptLevel> parseOptLevel(const std::string& text);  // "o0" / "-o0" / "0"

}  // namespace dfc::driver
