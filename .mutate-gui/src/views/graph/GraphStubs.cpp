// Values used everywhere (DESIGN §13): the learning rate read by every
// layer's optimizer ops, rotary tables and masks read by every layer. One
// node with an edge to each use draws a fan of long edges across the whole
// view and pulls the layer stack into a staircase; a small stub beside each
// use says the same in place (Netron and Model Explorer draw constants so).
// So is a value read far down the stack (a tied embedding's gradient from
// the LM head): one edge along the whole view, routed around every layer.
#include <QHash>
#include <algorithm>
#include <cstdlib>
#include <map>

#include "graph/GraphData.h"
#include "graph/GroupTree.h"

namespace dfc::views {
namespace {

QString topScope(const QString& scope) { return scope.section(QLatin1Char('/'), 0, 0); }

// Top-level hyperfunctions at least this many apart in graph order are far apart.
constexpr int kFarScopes = 10;

// Each node's top-level hyperfunction as its place in graph order (the top
// level itself: -1), worked out once per distinct scope.
std::vector<int> topScopeOrder(const GraphData& data) {
  std::map<QString, int> order;
  QHash<QString, int> ofScope;
  std::vector<int> out;
  out.reserve(data.nodes.size());
  for (const GraphNode& node : data.nodes) {
    auto known = ofScope.find(node.hyperfunction);
    if (known == ofScope.end()) {
      const QString top = topScope(node.hyperfunction);
      const int at = top.isEmpty() ? -1 : order.try_emplace(top, static_cast<int>(order.size())).first->second;
      known = ofScope.insert(node.hyperfunction, at);
    }
    out.push_back(known.value());
  }
  return out;
}

// The nodes whose value is read in at least minScopes top-level scopes other than their own.
std::vector<char> widelyUsed(const GraphData& data, const std::vector<int>& top, int minScopes) {
  std::vector<std::vector<int>> readers(data.nodes.size());  // a few each: a vector beats a set
  for (const GraphEdge& e : data.edges) {
    const int scope = top[static_cast<size_t>(e.to)];
    auto& seen = readers[static_cast<size_t>(e.from)];
    if (scope != top[static_cast<size_t>(e.from)] && std::find(seen.begin(), seen.end(), scope) == seen.end())
      seen.push_back(scope);
  }
  std::vector<char> wide(data.nodes.size(), 0);
  for (size_t n = 0; n < data.nodes.size(); ++n) {
    const GraphNodeKind kind = data.nodes[n].kind;
    const bool value = kind == GraphNodeKind::Op || kind == GraphNodeKind::Input;  // not a folded layer
    wide[n] = value && static_cast<int>(readers[n].size()) >= minScopes;
  }
  return wide;
}

bool farApart(int a, int b) { return a >= 0 && b >= 0 && std::abs(a - b) >= kFarScopes; }

GraphNode stubFor(const GraphNode& source, const GraphNode& user, int id) {
  GraphNode stub;
  stub.id = id;
  stub.kind = GraphNodeKind::Stub;
  stub.name = source.name;
  stub.op = source.op;
  // The value's name, short: "lr", "cos" (an op's label is "op\nname"), or the folded layer's.
  stub.label = source.kind == GraphNodeKind::Collapsed ? source.name : source.label.section(QLatin1Char('\n'), -1);
  stub.hyperfunction = ownerScope(user);  // drawn where its user is
  stub.stubSource = source.id;
  return stub;
}

}  // namespace

void stubWidelyUsedValues(GraphData& data, int minScopes) {
  const std::vector<int> top = topScopeOrder(data);
  const std::vector<char> wide = widelyUsed(data, top, minScopes);
  std::vector<GraphEdge> edges;
  edges.reserve(data.edges.size());
  for (const GraphEdge& e : data.edges) {
    const GraphNode& from = data.nodes[static_cast<size_t>(e.from)];
    const GraphNode& to = data.nodes[static_cast<size_t>(e.to)];
    const int a = top[static_cast<size_t>(e.from)], b = top[static_cast<size_t>(e.to)];
    if (!(wide[static_cast<size_t>(e.from)] && a != b) && !farApart(a, b)) {
      edges.push_back(e);
      continue;
    }
    const int stub = static_cast<int>(data.nodes.size());
    data.nodes.push_back(stubFor(from, to, stub));
    edges.push_back({stub, e.to});
  }
  data.edges = std::move(edges);
}

}  // namespace dfc::views
