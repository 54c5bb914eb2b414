#include "runtime/StepFusion.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace dfc::runtime {
namespace {

using ir::NodeId;
using ir::ValueId;

constexpr size_t kNowhere = std::numeric_limits<size_t>::max();

struct Anchored {
  FusionGroup group;
  size_t anchor = kNowhere;  // index in the section's node order where the group runs
};

FusionGroup attentionGroup(const ir::Graph& g, const AttentionPatternPtr& p, bool backward) {
  FusionGroup group;
  group.kind = backward ? FusionKind::AttentionBackward : FusionKind::AttentionForward;
  group.nodes = backward ? p->backwardGroup() : p->forwardGroup();
  group.attention = p;
  // Everything but the results (o; dq, dk, dv; or the layouts they are written in) stays inside the kernel.
  const std::vector<ValueId> results = backward ? p->backwardResults(g) : p->forwardResults();
  for (NodeId n : group.nodes)
    for (ValueId v : g.node(n).outputs)
      if (std::find(results.begin(), results.end(), v) == results.end()) group.inTile.push_back(v);
  if (backward) group.extraReads = p->backwardReads();
  return group;
}

// Where in `order` the group can run as one unit: at its last member when no
// node between its members reads a member's result, else at its first when
// none between produces a member's input; kNowhere otherwise.
size_t anchorOf(const ir::Graph& g, const std::vector<NodeId>& order, const FusionGroup& group) {
  const std::set<NodeId> members(group.nodes.begin(), group.nodes.end());
  std::set<ValueId> results, reads(group.extraReads.begin(), group.extraReads.end());
  for (NodeId n : group.nodes) {
    results.insert(g.node(n).outputs.begin(), g.node(n).outputs.end());
    reads.insert(g.node(n).inputs.begin(), g.node(n).inputs.end());
  }
  size_t first = kNowhere, last = 0;
  for (size_t i = 0; i < order.size(); ++i)
    if (members.count(order[i])) {
      first = std::min(first, i);
      last = i;
    }
  if (first == kNowhere) return kNowhere;
  bool readsResult = false, producesRead = false;
  for (size_t i = first + 1; i < last; ++i) {
    if (members.count(order[i])) continue;
    const ir::Node& n = g.node(order[i]);
    for (ValueId v : n.inputs) readsResult = readsResult || results.count(v) > 0;
    for (ValueId v : n.outputs) producesRead = producesRead || reads.count(v) > 0;
  }
  if (!readsResult) return last;
  return producesRead ? kNowhere : first;
}

// The section's groups: attention units at their anchors, the rest planned in the runs between them.
std::vector<FusionGroup> sectionGroups(const ir::Graph& g, const std::vector<NodeId>& order,
                                       const std::vector<Anchored>& attention,
                                       const std::vector<std::vector<NodeId>>& users,
                                       const std::vector<bool>& leavesStep) {
  std::map<size_t, const FusionGroup*> at;
  std::set<NodeId> fused;
  for (const Anchored& a : attention) {
    at[a.anchor] = &a.group;
    fused.insert(a.group.nodes.begin(), a.group.nodes.end());
  }
  std::vector<FusionGroup> groups;
  std::vector<NodeId> run;
  auto flush = [&] {
    for (FusionGroup& part : planSectionFusion(g, run, users, leavesStep, true)) groups.push_back(std::move(part));
    run.clear();
  };
  for (size_t i = 0; i < order.size(); ++i) {
    if (auto it = at.find(i); it != at.end()) {
      flush();
      groups.push_back(*it->second);
    } else if (!fused.count(order[i])) {
      run.push_back(order[i]);
    }
  }
  flush();
  return groups;
}

// Every unit reads only values produced before it (outside the section, or by an earlier unit).
bool inOrder(const ir::Graph& g, const std::vector<FusionGroup>& groups) {
  std::set<NodeId> inSection;
  for (const FusionGroup& group : groups) inSection.insert(group.nodes.begin(), group.nodes.end());
  std::set<ValueId> ready;
  auto available = [&](ValueId v) {
    const NodeId p = g.value(v).producer;
    return p == ir::kNoNode || !inSection.count(p) || ready.count(v) > 0;
  };
  for (const FusionGroup& group : groups) {
    for (ValueId v : group.extraReads)
      if (!available(v)) return false;
    for (NodeId n : group.nodes) {  // members in order: earlier members' results are ready
      for (ValueId v : g.node(n).inputs)
        if (!available(v)) return false;
      ready.insert(g.node(n).outputs.begin(), g.node(n).outputs.end());
    }
  }
  return true;
}

}  // namespace

std::vector<std::vector<FusionGroup>> planStepFusion(const ir::Graph& graph, const partition::Plan& plan,
                                                     const std::vector<std::vector<ir::NodeId>>& users,
                                                     const std::vector<bool>& leavesStep, bool enabled,
                                                     bool attention) {
  std::vector<std::vector<FusionGroup>> out;
  if (!enabled) {
    for (const partition::Section& sec : plan.sections)
      out.push_back(planSectionFusion(graph, sec.nodes, users, leavesStep, false));
    return out;
  }
  std::vector<int> sectionOf(graph.nodes.size(), -1);
  for (size_t s = 0; s < plan.sections.size(); ++s)
    for (NodeId n : plan.sections[s].nodes) sectionOf[static_cast<size_t>(n)] = static_cast<int>(s);
  std::vector<AttentionPatternPtr> patterns;
  if (attention) patterns = findAttention(graph, sectionOf, users, leavesStep);
  for (;;) {  // drops the attention of a section whose units would run out of order, then plans again
    std::vector<std::vector<Anchored>> anchored(plan.sections.size());
    std::vector<std::vector<const AttentionPattern*>> patternsIn(plan.sections.size());
    for (const AttentionPatternPtr& p : patterns) {
      std::vector<std::pair<size_t, Anchored>> units;
      for (bool backward : {false, true}) {
        if (backward && !p->hasBackward()) continue;
        Anchored a{attentionGroup(graph, p, backward)};
        const size_t s = static_cast<size_t>(sectionOf[static_cast<size_t>(a.group.nodes[0])]);
        a.anchor = anchorOf(graph, plan.sections[s].nodes, a.group);
        units.emplace_back(s, std::move(a));
      }
      if (std::any_of(units.begin(), units.end(), [](const auto& u) { return u.second.anchor == kNowhere; })) continue;
      for (auto& [s, a] : units) {
        anchored[s].push_back(std::move(a));
        patternsIn[s].push_back(p.get());
      }
    }
    out.clear();
    std::set<const AttentionPattern*> misplaced;
    for (size_t s = 0; s < plan.sections.size(); ++s) {
      out.push_back(sectionGroups(graph, plan.sections[s].nodes, anchored[s], users, leavesStep));
      if (!inOrder(graph, out.back())) misplaced.insert(patternsIn[s].begin(), patternsIn[s].end());
    }
    if (misplaced.empty()) return out;
    std::erase_if(patterns, [&](const AttentionPatternPtr& p) { return misplaced.count(p.get()) > 0; });
  }
}

}  // namespace dfc::runtime
