#include "graph/GroupTree.h"

#include <QHash>
#include <algorithm>
#include <unordered_map>

namespace dfc::views {
namespace {

QString parentScope(const QString& scope) {
  const qsizetype slash = scope.lastIndexOf(QLatin1Char('/'));
  return slash < 0 ? QString() : scope.left(slash);
}

// Groups created on demand, each registered as an item of its parent when
// its first node arrives, so items keep graph order.
class TreeBuilder {
 public:
  explicit TreeBuilder(GroupTree& tree) : m_tree(tree) {
    m_tree.groups.emplace_back();
    m_byScope.insert(QString(), 0);
  }

  void addNode(int node, const QString& scope) {
    const int g = groupOf(scope);
    LayoutGroup& group = m_tree.groups[static_cast<size_t>(g)];
    m_tree.nodeGroup[static_cast<size_t>(node)] = g;
    m_tree.nodeItem[static_cast<size_t>(node)] = static_cast<int>(group.items.size());
    group.items.push_back({node, -1});
  }

 private:
  int groupOf(const QString& scope) {
    if (const int known = m_byScope.value(scope, -1); known >= 0) return known;
    const int parent = groupOf(parentScope(scope));
    const int id = static_cast<int>(m_tree.groups.size());
    LayoutGroup group;
    group.scope = scope;
    group.parent = parent;
    LayoutGroup& up = m_tree.groups[static_cast<size_t>(parent)];
    group.itemInParent = static_cast<int>(up.items.size());
    up.items.push_back({-1, id});
    m_tree.groups.push_back(std::move(group));
    m_byScope.insert(scope, id);
    return id;
  }

  GroupTree& m_tree;
  QHash<QString, int> m_byScope;
};

// Moves `items` into a new synthetic part of group g; returns the part's id.
int makePart(GroupTree& tree, int g, std::vector<GroupItem> items) {
  const int part = static_cast<int>(tree.groups.size());
  LayoutGroup p;
  p.scope = tree.groups[static_cast<size_t>(g)].scope;
  p.parent = g;
  p.synthetic = true;
  for (size_t i = 0; i < items.size(); ++i) {
    const GroupItem item = items[i];
    if (item.node >= 0) {
      tree.nodeGroup[static_cast<size_t>(item.node)] = part;
      tree.nodeItem[static_cast<size_t>(item.node)] = static_cast<int>(i);
    } else {
      tree.groups[static_cast<size_t>(item.group)].parent = part;
      tree.groups[static_cast<size_t>(item.group)].itemInParent = static_cast<int>(i);
    }
  }
  p.items = std::move(items);
  tree.groups.push_back(std::move(p));
  return part;
}

// Cuts every group of more than maxItems items into balanced runs of items,
// again and again while the parts themselves are too many.
void splitOversized(GroupTree& tree, int maxItems) {
  const auto bound = static_cast<size_t>(maxItems);
  for (size_t g = 0; g < tree.groups.size(); ++g) {
    while (tree.groups[g].items.size() > bound) {
      std::vector<GroupItem> items = std::move(tree.groups[g].items);
      const size_t parts = (items.size() + bound - 1) / bound;
      const size_t per = (items.size() + parts - 1) / parts;
      std::vector<GroupItem> kept;
      for (size_t start = 0; start < items.size(); start += per) {
        std::vector<GroupItem> run(items.begin() + static_cast<std::ptrdiff_t>(start),
                                   items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), start + per)));
        const int part = makePart(tree, static_cast<int>(g), std::move(run));
        tree.groups[static_cast<size_t>(part)].itemInParent = static_cast<int>(kept.size());
        kept.push_back({-1, part});
      }
      tree.groups[g].items = std::move(kept);
    }
  }
}

std::vector<int> depths(const GroupTree& tree) {
  std::vector<int> depth(tree.groups.size(), -1);
  depth[0] = 0;
  for (size_t g = 1; g < tree.groups.size(); ++g) {
    std::vector<int> chain;  // g and its ancestors of unknown depth, deepest first
    for (int at = static_cast<int>(g); depth[static_cast<size_t>(at)] < 0;
         at = tree.groups[static_cast<size_t>(at)].parent)
      chain.push_back(at);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      depth[static_cast<size_t>(*it)] = depth[static_cast<size_t>(tree.groups[static_cast<size_t>(*it)].parent)] + 1;
  }
  return depth;
}

struct Lifted {
  int group = 0, from = 0, to = 0;
};

// The lowest group holding both nodes, and the items there that contain them.
Lifted lift(const GroupTree& tree, const std::vector<int>& depth, int u, int v) {
  int a = tree.nodeGroup[static_cast<size_t>(u)], b = tree.nodeGroup[static_cast<size_t>(v)];
  int itemA = tree.nodeItem[static_cast<size_t>(u)], itemB = tree.nodeItem[static_cast<size_t>(v)];
  auto up = [&tree](int& g, int& item) {
    item = tree.groups[static_cast<size_t>(g)].itemInParent;
    g = tree.groups[static_cast<size_t>(g)].parent;
  };
  while (depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)]) up(a, itemA);
  while (depth[static_cast<size_t>(b)] > depth[static_cast<size_t>(a)]) up(b, itemB);
  while (a != b) {
    up(a, itemA);
    up(b, itemB);
  }
  return {a, itemA, itemB};
}

void routeEdges(GroupTree& tree, const GraphData& data) {
  const std::vector<int> depth = depths(tree);
  std::vector<Lifted> lifted;
  lifted.reserve(data.edges.size());
  for (const GraphEdge& e : data.edges) {
    lifted.push_back(lift(tree, depth, e.from, e.to));
    tree.groups[static_cast<size_t>(lifted.back().group)].edges.emplace_back(lifted.back().from, lifted.back().to);
  }
  for (LayoutGroup& g : tree.groups) {
    std::sort(g.edges.begin(), g.edges.end());
    g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
  }
  tree.edgeRoutes.reserve(lifted.size());
  for (const Lifted& l : lifted) {
    const auto& edges = tree.groups[static_cast<size_t>(l.group)].edges;
    const auto at = std::lower_bound(edges.begin(), edges.end(), std::make_pair(l.from, l.to));
    tree.edgeRoutes.push_back({l.group, static_cast<int>(at - edges.begin())});
  }
}

// Every group between an edge's end and the group it lives in gets the port
// the edge crosses, joined to the item holding that end.
void addPorts(GroupTree& tree, const GraphData& data) {
  for (size_t e = 0; e < data.edges.size(); ++e) {
    const int home = tree.edgeRoutes[e].group;
    const bool up = tree.runsUp(static_cast<int>(e));
    auto climb = [&tree, home](int node, Port port) {
      int g = tree.nodeGroup[static_cast<size_t>(node)], item = tree.nodeItem[static_cast<size_t>(node)];
      while (g != home) {
        tree.groups[static_cast<size_t>(g)].ports.emplace_back(port, item);
        item = tree.groups[static_cast<size_t>(g)].itemInParent;
        g = tree.groups[static_cast<size_t>(g)].parent;
      }
    };
    climb(data.edges[e].from, up ? Port::OutAbove : Port::OutBelow);
    climb(data.edges[e].to, up ? Port::InBelow : Port::InAbove);
  }
  for (LayoutGroup& g : tree.groups) {
    std::sort(g.ports.begin(), g.ports.end());
    g.ports.erase(std::unique(g.ports.begin(), g.ports.end()), g.ports.end());
  }
}

// Graph order, with the inputs first and each stub just before its use (the
// view appends both after the ops), so a group cut into parts keeps a stub
// in its use's part.
std::vector<int> itemOrder(const GraphData& data) {
  std::vector<std::vector<int>> stubsOf(data.nodes.size());
  for (const GraphEdge& e : data.edges)
    if (data.nodes[static_cast<size_t>(e.from)].kind == GraphNodeKind::Stub)
      stubsOf[static_cast<size_t>(e.to)].push_back(e.from);
  std::vector<int> order;
  order.reserve(data.nodes.size());
  for (const GraphNode& node : data.nodes)
    if (node.kind == GraphNodeKind::Input) order.push_back(node.id);
  for (const GraphNode& node : data.nodes) {
    if (node.kind == GraphNodeKind::Input || node.kind == GraphNodeKind::Stub) continue;
    order.insert(order.end(), stubsOf[static_cast<size_t>(node.id)].begin(),
                 stubsOf[static_cast<size_t>(node.id)].end());
    order.push_back(node.id);
  }
  return order;
}

}  // namespace

QString ownerScope(const GraphNode& node) {
  switch (node.kind) {
    case GraphNodeKind::Input:
      return {};
    case GraphNodeKind::Collapsed:
      return parentScope(node.hyperfunction);
    default:
      return node.hyperfunction;
  }
}

bool GroupTree::runsUp(int edge) const {
  const Route route = edgeRoutes[static_cast<size_t>(edge)];
  const auto& [from, to] = groups[static_cast<size_t>(route.group)].edges[static_cast<size_t>(route.edge)];
  return from > to;  // items are in graph order, which a layer stack follows down
}

std::vector<int> GroupTree::preOrder() const {
  std::vector<int> order, stack{0};
  order.reserve(groups.size());
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    order.push_back(g);
    const auto& items = groups[static_cast<size_t>(g)].items;
    for (auto it = items.rbegin(); it != items.rend(); ++it)
      if (it->group >= 0) stack.push_back(it->group);
  }
  return order;
}

std::vector<int> GroupTree::postOrder() const {
  std::vector<int> order;
  order.reserve(groups.size());
  std::vector<std::pair<int, size_t>> stack{{0, 0}};  // group, next item to look at
  while (!stack.empty()) {
    auto& [g, next] = stack.back();
    const auto& items = groups[static_cast<size_t>(g)].items;
    while (next < items.size() && items[next].group < 0) ++next;
    if (next == items.size()) {
      order.push_back(g);
      stack.pop_back();
      continue;
    }
    const int child = items[next++].group;
    stack.emplace_back(child, 0);
  }
  return order;
}

GroupTree buildGroupTree(const GraphData& data, int maxItems) {
  GroupTree tree;
  tree.nodeGroup.assign(data.nodes.size(), 0);
  tree.nodeItem.assign(data.nodes.size(), 0);
  TreeBuilder builder(tree);
  for (int node : itemOrder(data)) builder.addNode(node, ownerScope(data.nodes[static_cast<size_t>(node)]));
  splitOversized(tree, std::max(2, maxItems));
  routeEdges(tree, data);
  addPorts(tree, data);
  return tree;
}

}  // namespace dfc::views
