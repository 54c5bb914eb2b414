#pragma once
// compile(): the entry point shared by `dfc compile` and the desktop app. A
// table of stages (driver/compile/CompileStages.cpp) run by one loop:
//   validate -> frontend -> autograd -> passes -> verify -> decompose -> map
//   -> lower -> place -> route -> bitfiles -> write-pef -> record
#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "driver/compile/CompileOptions.h"
#include "ir/Role.h"
#include "support/Error.h"

namespace dfc::driver {

struct CompileProgress {
  std::string stage;     // a stage name (compileStageNames), or "passes: <pass> done" inside "passes"
  int index = 0;         // the stage's position in compileStageNames()
  int total = 0;         // the number of stages
  double fraction = 0;   // 0..1 of the whole compile, by the stages' weights; never decreases
};

struct CompileResult {
  std::string pefPath;
  std::string logPath;
  int64_t compileId = 0;  // 0 if not recorded
  int numNodes = 0;
  int numSections = 0;
  ir::PerRole<int> sectionsByRole{};  // indexed by ir::roleIndex; sums to numSections
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
  std::vector<std::pair<std::string, double>> stageMs;  // per stage wall time, in stage order
  size_t hostArenaBytes = 0;       // the runtime's arena for one step's intermediates (runtime::estimateHostMemory)
  size_t hostPersistentBytes = 0;  // params, optimizer state, consts and inputs on the host
  int64_t kvCacheLen = 0;          // --decode: rows of each KV cache (0: not a decode step)
  int64_t kvCacheBytes = 0;        // --decode: all KV caches together (ir/KvCache.h)

  int sections(ir::NodeRole role) const { return sectionsByRole[ir::roleIndex(role)]; }
};

using ProgressFn = std::function<void(const CompileProgress&)>;

// `cancel` (may be null) is polled between stages; a compile cancelled before
// its PEF is written returns an error and writes no PEF.
Expected<CompileResult> compile(const CompileOptions& options, const ProgressFn& progress = {},
                                const std::atomic<bool>* cancel = nullptr);

// "validate", "frontend", ..., "record": the stages in the order they run.
std::vector<std::string> compileStageNames();

}  // namespace dfc::driver
