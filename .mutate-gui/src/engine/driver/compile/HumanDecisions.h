#pragma once
// --mac-human-decision FILE [--model-parallel] in the compile: the decisions
// (mapping/Decisions.h) applied around the map stage, recorded in the PEF's
// meta (`decisions`), and described for `dfc inspect`.
#include <string>
#include <vector>

#include "support/Error.h"

namespace dfc::driver {

struct CompileState;

// Map stage, before mapping: reshapes the subgraphs (no-op without a file).
Status applyHumanDecisions(CompileState& state);
// Map stage, after mapping: checks the plan, places sections on chips, charges transfers, keeps the meta record.
Status finishHumanDecisions(CompileState& state);

// The meta's `decisions` record as lines for dfc inspect (none when the PEF has none).
std::vector<std::string> describeDecisions(const std::string& decisionsJson);

}  // namespace dfc::driver
