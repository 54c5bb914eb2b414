#include "driver/Runner.h"

#include <spdlog/spdlog.h>

#include "driver/RunStages.h"

namespace dfc::driver {

std::vector<std::string> runStageNames() { return stageNames(runStages()); }

// One loop over the stage table (driver/RunStages.cpp); whatever happens, a
// run that reached the store is finished there, as failed or finished.
Expected<RunResult> run(const RunOptions& opts, const LogFn& log, const std::atomic<bool>* cancel) {
  RunState state(opts, log, cancel);
  const auto stages = runStages();
  StageHooks hooks;
  hooks.cancelMessage = "run cancelled";
  hooks.cancelled = [&] { return state.cancelled(); };
  hooks.after = [&](size_t index, double ms) { state.result.stageMs.emplace_back(std::string(stages[index].name), ms); };
  Status st = runStages(stages, state, hooks);
  if (state.store && state.runId) {
    (void)state.flush();
    auto fin = state.store->finishRun(state.runId, st ? "finished" : "failed", state.result.finalLoss,
                                      st ? std::optional<double>(state.result.testAccuracy) : std::nullopt);
    if (!fin) spdlog::warn("run store: {}", fin.error().message());
  }
  if (!st) return st.error();
  return std::move(state.result);
}

}  // namespace dfc::driver
