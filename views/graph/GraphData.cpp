#include "graph/GraphData.h"

#include <map>
#include <set>

namespace dfc::views {
namespace {

QString shortName(const std::string& name) {
  // Scoped names read "layer1/conv/w": the last component is enough on a node.
  const auto slash = name.find_last_of('/');
  return QString::fromStdString(slash == std::string::npos ? name : name.substr(slash + 1));
}

// The outermost folded scope that holds `scope`, or "" if none does.
QString foldedScopeOf(const std::string& scope, const std::set<QString>& folded) {
  if (scope.empty() || folded.empty()) return {};
  size_t end = 0;
  while (true) {
    end = scope.find('/', end);
    const QString prefix = QString::fromStdString(scope.substr(0, end));
    if (folded.count(prefix)) return prefix;
    if (end == std::string::npos) return {};
    ++end;
  }
}

}  // namespace

std::set<QString> topLevelScopes(const ir::Graph& graph) {
  std::set<QString> out;
  for (const auto& node : graph.nodes)
    if (!node.scope.empty()) out.insert(QString::fromStdString(node.scope.substr(0, node.scope.find('/'))));
  return out;
}

GraphData buildGraphData(const ir::Graph& graph, const partition::Plan& plan,
                         const GraphDataOptions& options) {
  GraphData data;
  data.sectionCount = static_cast<int>(plan.sections.size());

  std::vector<int> sectionOfNode(graph.nodes.size(), -1);
  std::vector<int> hyperOfNode(graph.nodes.size(), -1);
  for (const auto& section : plan.sections) {
    for (ir::NodeId id : section.nodes) {
      if (id >= 0 && static_cast<size_t>(id) < sectionOfNode.size()) {
        sectionOfNode[static_cast<size_t>(id)] = section.id;
        hyperOfNode[static_cast<size_t>(id)] = section.hypersection;
      }
    }
  }

  if (options.collapsedScopes) {
    data.collapsedScopes = *options.collapsedScopes;
  } else if (static_cast<int>(graph.nodes.size()) > options.collapseAbove) {
    data.collapsedScopes = topLevelScopes(graph);
  }
  for (const auto& node : graph.nodes) {
    for (size_t end = 0; !node.scope.empty();) {
      end = node.scope.find('/', end);
      data.scopes.insert(QString::fromStdString(node.scope.substr(0, end)));
      if (end == std::string::npos) break;
      ++end;
    }
  }
  std::vector<int> viewOfNode(graph.nodes.size(), -1);
  std::map<QString, int> groupNode;  // collapsed hyperfunction -> view node
  for (const auto& node : graph.nodes) {
    const auto idx = static_cast<size_t>(node.id);
    const QString scope = foldedScopeOf(node.scope, data.collapsedScopes);
    if (!scope.isEmpty()) {
      data.collapsed = true;
      auto [it, inserted] = groupNode.try_emplace(scope, static_cast<int>(data.nodes.size()));
      if (inserted) {
        GraphNode group;
        group.id = it->second;
        group.kind = GraphNodeKind::Collapsed;
        group.name = scope;
        group.op = QStringLiteral("hyperfunction");
        group.section = sectionOfNode[idx];
        group.hypersection = hyperOfNode[idx];
        group.hyperfunction = scope;
        group.role = QString::fromUtf8(ir::roleName(node.role).data(),
                                       static_cast<qsizetype>(ir::roleName(node.role).size()));
        group.opCount = 0;
        data.nodes.push_back(group);
      }
      GraphNode& group = data.nodes[static_cast<size_t>(it->second)];
      ++group.opCount;
      group.members.push_back(node.id);
      group.label = QStringLiteral("%1 (%2 ops)").arg(scope).arg(group.opCount);
      viewOfNode[idx] = it->second;
      continue;
    }
    GraphNode out;
    out.id = static_cast<int>(data.nodes.size());
    out.irNode = node.id;
    out.name = QString::fromStdString(node.name);
    const std::string_view op = ir::opName(node.op);
    out.op = QString::fromUtf8(op.data(), static_cast<qsizetype>(op.size()));
    // The short name adds nothing when it only repeats the op ("layer1/matmul").
    const QString shortLabel = shortName(node.name);
    out.label = shortLabel == out.op ? out.op : out.op + QLatin1Char('\n') + shortLabel;
    out.section = sectionOfNode[idx];
    out.hypersection = hyperOfNode[idx];
    out.hyperfunction = QString::fromStdString(node.scope);
    const std::string_view role = ir::roleName(node.role);
    out.role = QString::fromUtf8(role.data(), static_cast<qsizetype>(role.size()));
    viewOfNode[idx] = out.id;
    data.nodes.push_back(out);
  }

  std::map<ir::ValueId, int> inputNode;
  std::set<std::pair<int, int>> seen;
  for (const auto& node : graph.nodes) {
    const int to = viewOfNode[static_cast<size_t>(node.id)];
    for (ir::ValueId vid : node.inputs) {
      if (vid < 0 || static_cast<size_t>(vid) >= graph.values.size()) continue;
      const ir::Value& value = graph.value(vid);
      int from = -1;
      if (value.producer != ir::kNoNode) {
        from = viewOfNode[static_cast<size_t>(value.producer)];
      } else if (value.kind == ir::ValueKind::Input) {
        auto [it, inserted] = inputNode.try_emplace(vid, static_cast<int>(data.nodes.size()));
        if (inserted) {
          GraphNode in;
          in.id = it->second;
          in.kind = GraphNodeKind::Input;
          in.name = QString::fromStdString(value.name);
          in.op = QStringLiteral("input");
          in.label = shortName(value.name);
          data.nodes.push_back(in);
        }
        from = it->second;
      }
      if (from < 0 || from == to || !seen.insert({from, to}).second) continue;
      data.edges.push_back({from, to});
    }
  }
  return data;
}

}  // namespace dfc::views
