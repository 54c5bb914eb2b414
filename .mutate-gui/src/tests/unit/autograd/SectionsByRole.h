#pragma once
// A plan for tests that run a training graph through the executor: one section
// per run of nodes of one role, in graph order.
#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::test {

inline partition::Plan sectionsByRole(const ir::Graph& g) {
  partition::Plan plan;
  for (const ir::Node& n : g.nodes) {
    if (plan.sections.empty() || plan.sections.back().type != n.role) {
      int id = static_cast<int>(plan.sections.size());
      plan.sections.push_back({id, "s" + std::to_string(id), n.role, {}, "", id, {}});
      plan.hypersections.push_back({id, "hs" + std::to_string(id), {id}});
      plan.schedule.push_back(id);
    }
    plan.sections.back().nodes.push_back(n.id);
  }
  return plan;
}

}  // namespace dfc::test
