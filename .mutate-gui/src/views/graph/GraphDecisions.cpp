#include "graph/GraphDecisions.h"

#include <algorithm>
#include <map>
#include <optional>

namespace dfc::views {
namespace {

// The IR ops a graph node stands for, in graph order.
std::vector<ir::NodeId> opsOf(const GraphNode& node) {
  if (node.kind == GraphNodeKind::Op && node.irNode != ir::kNoNode) return {node.irNode};
  if (node.kind != GraphNodeKind::Collapsed) return {};
  std::vector<ir::NodeId> ops = node.members;
  std::sort(ops.begin(), ops.end());
  return ops;
}

// "scope/*" when it names exactly `ops` (of `role`, when given), else the ops' names.
std::vector<std::string> patternsFor(const GraphNode& node, const ir::Graph& graph, const std::vector<ir::NodeId>& ops,
                                     std::optional<ir::NodeRole> role) {
  if (node.kind == GraphNodeKind::Collapsed && !node.hyperfunction.isEmpty()) {
    mapping::Decision glob;
    glob.patterns = {node.hyperfunction.toStdString() + "/*"};
    glob.role = role;
    if (mapping::matchDecision(graph, glob) == ops) return glob.patterns;
  }
  std::vector<std::string> names;
  for (ir::NodeId id : ops) names.push_back(graph.node(id).name);
  return names;
}

mapping::Decision decision(mapping::DecisionKind kind, std::vector<std::string> patterns, int chip = -1) {
  mapping::Decision d;
  d.kind = kind;
  d.patterns = std::move(patterns);
  d.chip = chip;
  return d;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from) { to.insert(to.end(), from.begin(), from.end()); }

}  // namespace

std::vector<mapping::Decision> decisionsForNodes(const GraphData& data, const ir::Graph& graph, const QList<int>& nodes,
                                                 DecisionAction action, int chip) {
  std::map<ir::NodeRole, std::vector<std::string>> perRole;  // together: the patterns of each role
  std::vector<std::string> all;
  for (int index : nodes) {
    if (index < 0 || static_cast<size_t>(index) >= data.nodes.size()) continue;
    const GraphNode& node = data.nodes[static_cast<size_t>(index)];
    const std::vector<ir::NodeId> ops = opsOf(node);
    if (ops.empty()) continue;
    std::map<ir::NodeRole, std::vector<ir::NodeId>> byRole;
    for (ir::NodeId id : ops) byRole[graph.node(id).role].push_back(id);
    if (action == DecisionAction::AssignChip) append(all, patternsFor(node, graph, ops, std::nullopt));
    for (const auto& [role, roleOps] : byRole) {
      if (action == DecisionAction::Together) append(perRole[role], patternsFor(node, graph, roleOps, role));
      if (action == DecisionAction::CutBefore) all.push_back(graph.node(roleOps.front()).name);
    }
  }
  std::vector<mapping::Decision> out;
  if (action == DecisionAction::Together)
    for (auto& [role, patterns] : perRole) {
      out.push_back(decision(mapping::DecisionKind::Together, std::move(patterns)));
      // A glob may reach ops of other roles: the group keeps to its own.
      out.back().role = role;
    }
  if (!all.empty() && action == DecisionAction::CutBefore) out.push_back(decision(mapping::DecisionKind::CutBefore, all));
  if (!all.empty() && action == DecisionAction::AssignChip) out.push_back(decision(mapping::DecisionKind::Chip, all, chip));
  return out;
}

}  // namespace dfc::views
