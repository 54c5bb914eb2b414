#include "graph/GraphData.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "schedule/RoleStyle.h"

namespace dfc::views {
namespace {

QString shortName(const std::string& name) {
  // Scoped names read "layer1/conv/w": the last component is enough on a node.
  const auto slash = name.find_last_of('/');
  return QString::fromStdString(slash == std::string::npos ? name : name.substr(slash + 1));
}

// One QString per distinct scope, op and role: a graph of 50k ops has a few
// hundred of each, and converting per node was most of the build's time.
class StringCache {
 public:
  const QString& operator()(std::string_view text) {
    auto it = m_strings.find(text);
    if (it == m_strings.end())
      it = m_strings.emplace(text, QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()))).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, QString> m_strings;  // views into the IR, which outlives the build
};

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

QString roleText(ir::NodeRole role) {
  const std::string_view name = ir::roleName(role);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString roleDisplayName(const QString& role) {
  const auto parsed = ir::parseRole(role.toStdString());
  return parsed ? roleLabel(*parsed) : role;  // a name the engine does not know shows as it is
}

namespace {

// Section and hypersection of each IR node, from the plan.
struct NodePlacement {
  std::vector<int> section;
  std::vector<int> hypersection;
  std::vector<QString> hypersectionName;
};

NodePlacement placeNodes(const ir::Graph& graph, const partition::Plan& plan) {
  NodePlacement out{std::vector<int>(graph.nodes.size(), -1), std::vector<int>(graph.nodes.size(), -1),
                    std::vector<QString>(graph.nodes.size())};
  for (const auto& section : plan.sections) {
    const bool named = section.hypersection >= 0 && static_cast<size_t>(section.hypersection) < plan.hypersections.size();
    const QString name = named ? QString::fromStdString(plan.hypersections[static_cast<size_t>(section.hypersection)].name)
                               : QString();
    for (ir::NodeId id : section.nodes) {
      if (id < 0 || static_cast<size_t>(id) >= out.section.size()) continue;
      out.section[static_cast<size_t>(id)] = section.id;
      out.hypersection[static_cast<size_t>(id)] = section.hypersection;
      out.hypersectionName[static_cast<size_t>(id)] = name;
    }
  }
  return out;
}

// Adds one IR op to a view node's contents.
void addContents(GraphNode& node, const QString& role, int section, const QString& hypersection) {
  ++node.roleOps[role];
  if (section >= 0) node.sections.insert(section);
  if (!hypersection.isEmpty()) ++node.hypersectionOps[hypersection];
}

// The role a folded node shows in one word: its most common.
QString mainRole(const std::map<QString, int>& roleOps) {
  const auto it = std::max_element(roleOps.begin(), roleOps.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
  return it == roleOps.end() ? QString() : it->first;
}

std::set<QString> allScopes(const ir::Graph& graph) {
  std::unordered_set<std::string_view> prefixes;
  std::string_view last;  // consecutive ops mostly share their scope
  for (const auto& node : graph.nodes) {
    const std::string_view scope = node.scope;
    if (scope == last) continue;
    last = scope;
    for (size_t end = 0; !scope.empty();) {
      end = scope.find('/', end);
      prefixes.insert(scope.substr(0, end));
      if (end == std::string_view::npos) break;
      ++end;
    }
  }
  std::set<QString> scopes;
  for (std::string_view prefix : prefixes)
    scopes.insert(QString::fromUtf8(prefix.data(), static_cast<qsizetype>(prefix.size())));
  return scopes;
}

GraphNode opNode(const ir::Node& node, int id, const NodePlacement& placed, StringCache& strings) {
  const auto idx = static_cast<size_t>(node.id);
  GraphNode out;
  out.id = id;
  out.irNode = node.id;
  out.name = QString::fromStdString(node.name);
  out.op = strings(ir::opName(node.op));
  // The short name adds nothing when it only repeats the op ("layer1/matmul").
  const QString shortLabel = shortName(node.name);
  out.label = shortLabel == out.op ? out.op : out.op + QLatin1Char('\n') + shortLabel;
  out.section = placed.section[idx];
  out.hypersection = placed.hypersection[idx];
  out.hypersectionName = placed.hypersectionName[idx];
  out.hyperfunction = strings(node.scope);
  out.role = strings(ir::roleName(node.role));
  addContents(out, out.role, out.section, out.hypersectionName);
  return out;
}

// How often the schedule calls each hypersection (the legend's counts).
void countHypersectionCalls(GraphData& data, const partition::Plan& plan) {
  for (int id : plan.schedule)
    if (id >= 0 && static_cast<size_t>(id) < plan.sections.size()) {
      const int hs = plan.sections[static_cast<size_t>(id)].hypersection;
      if (hs >= 0 && static_cast<size_t>(hs) < plan.hypersections.size())
        ++data.hypersectionCalls[QString::fromStdString(plan.hypersections[static_cast<size_t>(hs)].name)];
    }
}

// One view node per op outside a collapsed scope, one per collapsed scope for
// all its ops; returns the view node of each graph node.
std::vector<int> addOpNodes(GraphData& data, const ir::Graph& graph, const NodePlacement& placed) {
  std::vector<int> viewOfNode(graph.nodes.size(), -1);
  std::map<QString, int> groupNode;  // collapsed hyperfunction -> view node
  StringCache strings;
  std::unordered_map<std::string_view, QString> foldedOf;  // per distinct scope
  data.nodes.reserve(graph.nodes.size());
  for (const auto& node : graph.nodes) {
    const auto idx = static_cast<size_t>(node.id);
    auto folded = foldedOf.find(node.scope);
    if (folded == foldedOf.end())
      folded = foldedOf.emplace(node.scope, foldedScopeOf(node.scope, data.collapsedScopes)).first;
    const QString& scope = folded->second;
    if (scope.isEmpty()) {
      viewOfNode[idx] = static_cast<int>(data.nodes.size());
      data.nodes.push_back(opNode(node, viewOfNode[idx], placed, strings));
      continue;
    }
    data.collapsed = true;
    auto [it, inserted] = groupNode.try_emplace(scope, static_cast<int>(data.nodes.size()));
    if (inserted) {
      GraphNode group;
      group.id = it->second;
      group.kind = GraphNodeKind::Collapsed;
      group.name = scope;
      group.op = QStringLiteral("hyperfunction");
      group.section = placed.section[idx];
      group.hypersection = placed.hypersection[idx];
      group.hypersectionName = placed.hypersectionName[idx];
      group.hyperfunction = scope;
      group.opCount = 0;
      data.nodes.push_back(group);
    }
    GraphNode& group = data.nodes[static_cast<size_t>(it->second)];
    ++group.opCount;
    group.members.push_back(node.id);
    addContents(group, strings(ir::roleName(node.role)), placed.section[idx], placed.hypersectionName[idx]);
    viewOfNode[idx] = it->second;
  }
  return viewOfNode;
}

void labelCollapsedNodes(GraphData& data) {
  for (GraphNode& group : data.nodes) {
    if (group.kind != GraphNodeKind::Collapsed) continue;
    group.role = mainRole(group.roleOps);
    // Inside its parent's frame the last part of the scope says enough, and
    // every layer's "mlp" then has the same size (one layout for all).
    group.label = QStringLiteral("%1 (%2 ops)").arg(group.name.section(QLatin1Char('/'), -1)).arg(group.opCount);
  }
}

// One edge per distinct pair of view nodes a value links; a graph input gets
// its own node on first use.
void addEdges(GraphData& data, const ir::Graph& graph, const std::vector<int>& viewOfNode) {
  std::map<ir::ValueId, int> inputNode;
  std::unordered_set<uint64_t> seen;
  seen.reserve(graph.nodes.size() * 2);
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
      if (from < 0 || from == to || !seen.insert(static_cast<uint64_t>(from) << 32 | static_cast<uint32_t>(to)).second)
        continue;
      data.edges.push_back({from, to});
    }
  }
}

}  // namespace

GraphData buildGraphData(const ir::Graph& graph, const partition::Plan& plan, const GraphDataOptions& options) {
  GraphData data;
  data.sectionCount = static_cast<int>(plan.sections.size());
  const NodePlacement placed = placeNodes(graph, plan);
  countHypersectionCalls(data, plan);
  if (options.collapsedScopes) {
    data.collapsedScopes = *options.collapsedScopes;
  } else if (static_cast<int>(graph.nodes.size()) > options.collapseAbove) {
    data.collapsedScopes = topLevelScopes(graph);
  }
  data.scopes = allScopes(graph);
  const std::vector<int> viewOfNode = addOpNodes(data, graph, placed);
  labelCollapsedNodes(data);
  addEdges(data, graph, viewOfNode);
  if (options.stubAboveScopes > 0) stubWidelyUsedValues(data, options.stubAboveScopes);
  return data;
}

}  // namespace dfc::views
