// Values used everywhere (DESIGN §13): the learning rate read by every
// layer's optimizer ops, rotary tables and masks read by every layer. One
// node with an edge to each use draws a fan of long edges across the whole
// view and pulls the layer stack into a staircase; a small stub beside each
// use says the same in place (Netron and Model Explorer draw constants so).
// So is a value read far down the stack (a tied embedding's gradient from
// the LM head): one edge along the whole view, routed around every layer.
#include <cstdlib>
#include <map>
#include <set>

#include "graph/GraphData.h"
#include "graph/GroupTree.h"

namespace dfc::views {
namespace {

QString topScope(const QString& scope) { return scope.section(QLatin1Char('/'), 0, 0); }

// Top-level hyperfunctions at least this many apart in graph order are far apart.
constexpr int kFarScopes = 10;

// Each top-level hyperfunction's place in graph order (the top level itself: -1).
std::map<QString, int> scopeOrder(const GraphData& data) {
  std::map<QString, int> order;
  for (const GraphNode& node : data.nodes) {
    const QString scope = topScope(node.hyperfunction);
    if (!scope.isEmpty()) order.try_emplace(scope, static_cast<int>(order.size()));
  }
  return order;
}

bool farApart(const std::map<QString, int>& order, const GraphNode& a, const GraphNode& b) {
  const auto ia = order.find(topScope(a.hyperfunction)), ib = order.find(topScope(b.hyperfunction));
  return ia != order.end() && ib != order.end() && std::abs(ia->second - ib->second) >= kFarScopes;
}

// The nodes whose value is read in at least minScopes top-level scopes other than their own.
std::vector<char> widelyUsed(const GraphData& data, int minScopes) {
  std::vector<std::set<QString>> readers(data.nodes.size());
  for (const GraphEdge& e : data.edges) {
    const GraphNode& from = data.nodes[static_cast<size_t>(e.from)];
    const QString scope = topScope(data.nodes[static_cast<size_t>(e.to)].hyperfunction);
    if (scope != topScope(from.hyperfunction)) readers[static_cast<size_t>(e.from)].insert(scope);
  }
  std::vector<char> wide(data.nodes.size(), 0);
  for (size_t n = 0; n < data.nodes.size(); ++n) {
    const GraphNodeKind kind = data.nodes[n].kind;
    const bool value = kind == GraphNodeKind::Op || kind == GraphNodeKind::Input;  // not a folded layer
    wide[n] = value && static_cast<int>(readers[n].size()) >= minScopes;
  }
  return wide;
}

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
  const std::vector<char> wide = widelyUsed(data, minScopes);
  const std::map<QString, int> order = scopeOrder(data);
  std::vector<GraphEdge> edges;
  edges.reserve(data.edges.size());
  for (const GraphEdge& e : data.edges) {
    const GraphNode& from = data.nodes[static_cast<size_t>(e.from)];
    const GraphNode& to = data.nodes[static_cast<size_t>(e.to)];
    const bool everywhere = wide[static_cast<size_t>(e.from)] && topScope(to.hyperfunction) != topScope(from.hyperfunction);
    if (!everywhere && !farApart(order, from, to)) {
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
