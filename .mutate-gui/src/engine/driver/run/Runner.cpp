#include "driver/run/Runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>

#include "driver/run/RunStages.h"

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
  size_t current = 0;
  state.stageProgress = [&](double within) {
    if (!opts.progress) return;
    const double before = progressBefore(stages, current), after = progressBefore(stages, current + 1);
    opts.progress(std::string(stages[current].name), before + (after - before) * std::clamp(within, 0.0, 1.0));
  };
  hooks.before = [&](size_t index) {
    current = index;
    state.stageProgress(0);
  };
  Status st = runStages(stages, state, hooks);
  if (st) state.stageProgress(1);
  if (state.store && state.runId) {
    Status fin = Error();
    for (int attempt = 0; attempt < 3 && !fin; ++attempt) {  // each attempt waits out SQLite's busy timeout
      (void)state.flush();
      if (!state.storeError.empty()) continue;
      const bool accuracy = st && opts.inputs.empty();  // a run on given inputs has no labels to score
      fin = state.store->finishRun(state.runId, st ? "finished" : "failed", state.result.finalLoss,
                                   accuracy ? std::optional<double>(state.result.testAccuracy) : std::nullopt);
      if (!fin) state.storeError = fin.error().message();
    }
  }
  if (!state.storeError.empty() && opts.dbPath != "-")
    state.result.storeNote = "the run's record was not saved in the run store: " + state.storeError;
  if (!st) return st.error();
  return std::move(state.result);
}

namespace {

// A step number: decimal digits only, at most 18 of them.
std::optional<int64_t> stepNumber(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(text);
}

}  // namespace

Status parseTraceSteps(const std::string& flag, const std::string& text, RunOptions& options) {
  const auto bad = [&](const std::string& why) {
    return makeError(flag + " '" + text + "': " + why + " (expected A:B, A: or :B, step numbers from 0)");
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) return bad("one ':' needed");
  const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
  if (from.empty() && to.empty()) return bad("give at least one end");
  const auto a = from.empty() ? std::optional<int64_t>(0) : stepNumber(from);
  const auto b = to.empty() ? std::optional<int64_t>(-1) : stepNumber(to);
  if (!a || !b) return bad("not a step number");
  if (*b >= 0 && *b <= *a) return bad("the window is empty");
  options.traceFrom = *a;
  options.traceTo = *b;
  return {};
}

}  // namespace dfc::driver
