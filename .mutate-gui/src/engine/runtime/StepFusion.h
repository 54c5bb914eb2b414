#pragma once
// How every section of a step runs: the fused attention chains found across
// the step (AttentionFusion.h; a forward and its backward may sit in different
// sections), each placed as one unit in its section's order, and the nodes
// around them grouped by planSectionFusion. The executor and the host-memory
// estimate both plan through here, so they agree.
#include <vector>

#include "partition/Plan.h"
#include "runtime/SectionFusion.h"

namespace dfc::runtime {

// One list of groups per plan section (same order). `users` is
// graph.computeUsers(); `leavesStep[v]` marks graph outputs and state-update
// sources. With `enabled` false every node is Single; with `attention` false
// attention chains run op by op (grouped like any other nodes).
std::vector<std::vector<FusionGroup>> planStepFusion(const ir::Graph& graph, const partition::Plan& plan,
                                                     const std::vector<std::vector<ir::NodeId>>& users,
                                                     const std::vector<bool>& leavesStep, bool enabled,
                                                     bool attention = true);

}  // namespace dfc::runtime
