#include "driver/GivenInputsRun.h"

#include "driver/HostBreakdown.h"
#include "driver/RunStages.h"

namespace dfc::driver {

Status prepareGivenInputs(RunState& s) {
  const auto start = RunState::Clock::now();
  const RunOptions& o = s.opts;
  if (!s.pef.meta.inference)
    return makeError("--input runs an inference PEF; " + o.pefPath +
                     " was compiled for training (compile it with --inference)");
  if (o.dataParallel || o.decode) return makeError("--input runs one forward step: drop --data-parallel and --decode");
  auto bound = bindInputs(s.pef.graph, o.inputs, o.seed, inputNamesOf(s.pef));
  if (!bound) return bound.error();
  s.given = std::move(*bound);
  if (!o.outputDir.empty()) DFC_TRY(checkOutputTargets(o.outputDir, outputNamesOf(s.pef)));
  const std::vector<std::string> names = inputNamesOf(s.pef);
  for (size_t k = 0; k < s.given.size(); ++k)
    s.say("Input " + names[k] + ": " + s.given[k].tensor.type().toString() + " from " + s.given[k].from);
  s.hostPhase(host::kDataLoad, start);
  return {};
}

Status runGivenInputs(RunState& s) {
  const auto start = RunState::Clock::now();
  const ir::Graph& g = s.pef.graph;
  auto feed = [&]() -> Status {
    for (const BoundInput& in : s.given) DFC_TRY(s.exec->setInput(in.value, in.tensor));
    return {};
  };
  const std::vector<std::string> names = outputNamesOf(s.pef);
  auto collect = [&]() -> Status {
    for (size_t k = 0; k < g.outputs.size(); ++k)
      s.result.outputs.emplace_back(names[k], s.exec->tensor(g.outputs[k]).clone());
    return {};
  };
  const int64_t stepsBefore = s.step;
  DFC_TRY(hostStep(s, true, feed, collect));
  s.result.evalSteps = s.step - stepsBefore;
  for (const auto& [name, t] : s.result.outputs)
    s.say("Output " + name + ": " + t.type().toString() + ", " + summarizeTensor(t));
  if (!s.opts.outputDir.empty()) {
    auto written = writeOutputs(s.opts.outputDir, s.result.outputs);
    if (!written) return written.error();
    s.result.outputFiles = std::move(*written);
    for (const auto& path : s.result.outputFiles) s.say("Wrote " + path);
  }
  Status st = s.flush();
  s.hostPhase(host::kEvaluate, start);
  return st;
}

}  // namespace dfc::driver
