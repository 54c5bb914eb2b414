#include "driver/compile/CompileToPlan.h"

#include <algorithm>

#include "driver/compile/CompileStages.h"

namespace dfc::driver {

Expected<pef::Pef> compileToPlan(const CompileOptions& options) {
  const auto all = compileStages();
  auto map = std::find_if(all.begin(), all.end(), [](const auto& s) { return s.name == "map"; });
  if (map == all.end()) return Error("compileToPlan: the compile has no map stage", ErrorKind::Internal);
  CompileState state(options, [](const std::string&, double) {});
  DFC_TRY(runStages(std::span(all.begin(), map + 1), state, StageHooks{}));
  pef::Pef pef = std::move(state.pef);
  pef.meta.pefName = state.resolved.pefName;
  pef.meta.model = options.model;
  pef.meta.arch = state.resolved.arch.name;
  pef.meta.args = options.args;
  pef.meta.batchSize = options.batchSize;
  pef.meta.inference = options.inference;
  return pef;
}

}  // namespace dfc::driver
