#pragma once
// A pipeline as data (glow's pass pipeline, applied to the driver): named
// stages with a progress weight, run in order by one loop that checks for
// cancel before each stage and times it. driver::compile and driver::run are
// such tables; a later caller may run a tail of one on a kept state.
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/Error.h"

namespace dfc::driver {

template <typename State>
struct Stage {
  std::string_view name;
  double weight = 1;         // its share of the progress bar (compile time it usually takes)
  Status (*run)(State&) = nullptr;
};

struct StageHooks {
  using Clock = std::chrono::steady_clock;
  std::function<bool()> cancelled;                     // asked before each stage; true stops the loop
  std::string cancelMessage = "cancelled";             // the error a cancelled loop returns
  std::function<void(size_t index)> before;            // the stage is about to run
  std::function<void(size_t index, double ms)> after;  // it ran (successfully or not) in `ms`
  std::function<Clock::time_point()> now;              // the clock stages are timed by (default: steady)
};

template <typename State>
Status runStages(std::span<const Stage<State>> stages, State& state, const StageHooks& hooks) {
  auto now = [&] { return hooks.now ? hooks.now() : StageHooks::Clock::now(); };
  for (size_t i = 0; i < stages.size(); ++i) {
    if (hooks.cancelled && hooks.cancelled()) return makeError(hooks.cancelMessage);
    if (hooks.before) hooks.before(i);
    const auto start = now();
    Status status = stages[i].run(state);
    if (hooks.after) hooks.after(i, std::chrono::duration<double, std::milli>(now() - start).count());
    if (!status) return status;
  }
  return {};
}

template <typename State>
std::vector<std::string> stageNames(std::span<const Stage<State>> stages) {
  std::vector<std::string> names;
  for (const auto& stage : stages) names.emplace_back(stage.name);
  return names;
}

// Weight of the stages before `index` over the weight of all: where the
// progress bar stands when stage `index` starts.
template <typename State>
double progressBefore(std::span<const Stage<State>> stages, size_t index) {
  double done = 0, total = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    total += stages[i].weight;
    if (i < index) done += stages[i].weight;
  }
  return total > 0 ? done / total : 0.0;
}

}  // namespace dfc::driver
