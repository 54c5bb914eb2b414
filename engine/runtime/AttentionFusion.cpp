#include "runtime/AttentionFusion.h"

#include <algorithm>

#include "runtime/AttentionLayouts.h"

namespace dfc::runtime {
namespace {

// All of `nodes` in one section.
bool oneSection(const std::vector<ir::NodeId>& nodes, const std::vector<int>& sectionOf) {
  const int s = sectionOf[static_cast<size_t>(nodes.front())];
  return s >= 0 && std::all_of(nodes.begin(), nodes.end(),
                               [&](ir::NodeId n) { return sectionOf[static_cast<size_t>(n)] == s; });
}

}  // namespace

std::vector<AttentionPatternPtr> findAttention(const ir::Graph& graph, const std::vector<int>& sectionOf,
                                               const std::vector<std::vector<ir::NodeId>>& users,
                                               const std::vector<bool>& leavesStep) {
  std::vector<AttentionPatternPtr> found;
  for (const ir::Node& node : graph.nodes) {
    auto p = std::make_shared<AttentionPlan>();
    if (!ir::matchAttentionForward(graph, node, users, leavesStep, *p) || !oneSection(p->forwardNodes(), sectionOf))
      continue;
    // Probabilities read outside a fused backward would need memory: leave that attention op by op.
    if (!p->probsOnlyInForward(users) &&
        (!ir::matchAttentionBackward(graph, users, leavesStep, *p) || !oneSection(p->backwardNodes(), sectionOf)))
      continue;
    absorbLayouts(graph, sectionOf, users, leavesStep, *p);
    found.push_back(std::move(p));
  }
  return found;
}

}  // namespace dfc::runtime
