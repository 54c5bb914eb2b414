#include "driver/compile/Compiler.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "driver/compile/CompileStages.h"

namespace dfc::driver {

std::vector<std::string> compileStageNames() { return stageNames(compileStages()); }

// One loop over the stage table (driver/compile/CompileStages.cpp) does the timing,
// the weighted progress, the cancel checks and the --debug dumps.
Expected<CompileResult> compile(const CompileOptions& opts, const ProgressFn& progress, const std::atomic<bool>* cancel) {
  const auto stages = compileStages();
  const int total = static_cast<int>(stages.size());
  size_t current = 0;
  auto report = [&](const std::string& label, double withinStage) {
    if (!progress) return;
    double before = progressBefore(stages, current), after = progressBefore(stages, current + 1);
    progress({label, static_cast<int>(current), total, before + (after - before) * withinStage});
  };
  CompileState state(opts, report);

  StageHooks hooks;
  hooks.cancelMessage = "compile cancelled";
  // Once the PEF is written the compile completes: a cancel then would leave a PEF behind an error.
  hooks.cancelled = [&] { return cancel && cancel->load() && !state.pefWritten; };
  hooks.before = [&](size_t index) {
    current = index;
    spdlog::info("[{}/{}] {}", index + 1, total, stages[index].name);
    report(std::string(stages[index].name), 0.0);
  };
  hooks.after = [&](size_t index, double ms) {
    state.result.stageMs.emplace_back(std::string(stages[index].name), ms);
    spdlog::info("    {} took {:.1f} ms", stages[index].name, ms);
    if (state.dumpGraph) state.dump(*state.dumpGraph, std::string(stages[index].name));
    state.dumpGraph = nullptr;
  };
  DFC_TRY(runStages(stages, state, hooks));
  report(std::string(stages.back().name), 1.0);  // the bar reaches its end

  // compileMs is the record stage's, the figure the run store keeps: dfc, dfstudio's Runs table and
  // this log line all say the same compile time (the store's own write after it is not counted).
  CompileResult& result = state.result;
  spdlog::info("compiled {} nodes into {} sections in {:.1f} ms: {}", result.numNodes, result.numSections,
               result.compileMs, result.pefPath);
  return std::move(result);
}

}  // namespace dfc::driver
