#include "graph/HierarchicalLayout.h"

#include <QElapsedTimer>
#include <QHash>
#include <QLineF>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

#include "graph/DotLayout.h"
#include "graph/GroupTree.h"

namespace dfc::views {
namespace {

constexpr double kPad = 8;            // frame to content
constexpr double kTitle = 16;         // the frame's title line
constexpr double kPartPad = 4;        // around a part of an oversized group (no frame)
constexpr double kTitleChar = 7;      // bold title glyph advance
constexpr double kArrow = 7;          // arrowhead length, as the view draws it
constexpr double kPortSize = 2;       // a port is a point the edges pass through
constexpr size_t kMaxPortEdges = 16;  // items one port's routed edges may reach

void put(std::string& key, int value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); }

// Groups of one structure: the same items (node kinds and ops, child
// structures) and edges in the same order. Children's structures come first.
struct Structures {
  std::vector<int> of;                   // group -> structure
  std::vector<std::vector<int>> groups;  // structure -> its groups
  std::vector<std::string> keys;
};

Structures findStructures(const GraphData& data, const GroupTree& tree, const std::vector<int>& postOrder) {
  Structures s;
  s.of.assign(tree.groups.size(), -1);
  QHash<QString, int> ops;
  std::unordered_map<std::string, int> byKey;
  for (int g : postOrder) {
    const LayoutGroup& group = tree.groups[static_cast<size_t>(g)];
    std::string key;
    put(key, group.synthetic);
    put(key, static_cast<int>(group.items.size()));
    for (const GroupItem& item : group.items) {
      if (item.group >= 0) {
        put(key, -1);
        put(key, s.of[static_cast<size_t>(item.group)]);
        continue;
      }
      const GraphNode& node = data.nodes[static_cast<size_t>(item.node)];
      put(key, static_cast<int>(node.kind));
      auto op = ops.find(node.op);
      if (op == ops.end()) op = ops.insert(node.op, static_cast<int>(ops.size()));
      put(key, op.value());
      put(key, static_cast<int>(node.label.count(QLatin1Char('\n'))));
    }
    for (const auto& [from, to] : group.edges) {
      put(key, from);
      put(key, to);
    }
    put(key, -2);
    for (const auto& [port, item] : group.ports) {
      put(key, static_cast<int>(port));
      put(key, item);
    }
    auto [it, inserted] = byKey.try_emplace(key, static_cast<int>(s.keys.size()));
    if (inserted) {
      s.keys.push_back(std::move(key));
      s.groups.emplace_back();
    }
    s.of[static_cast<size_t>(g)] = it->second;
    s.groups[static_cast<size_t>(it->second)].push_back(g);
  }
  return s;
}

// The ports a group uses, in Port order, are items after its own: the item
// index of each port kind, -1 where unused.
std::array<int, kPortKinds> portItems(const LayoutGroup& group) {
  std::array<int, kPortKinds> at;
  at.fill(-1);
  int next = static_cast<int>(group.items.size());
  for (const auto& [port, item] : group.ports)  // sorted by port first
    if (at[static_cast<size_t>(port)] < 0) at[static_cast<size_t>(port)] = next++;
  return at;
}

// Per entry of group.ports: the index of its edge in the group's layout, or
// -1 when its port joins too many items to route (a long edge from a pinned
// port to each of them would make dot slow): a straight line then.
std::vector<int> portEdgeIndices(const LayoutGroup& group) {
  std::array<size_t, kPortKinds> count{};
  for (const auto& entry : group.ports) ++count[static_cast<size_t>(entry.first)];
  std::vector<int> out;
  out.reserve(group.ports.size());
  int next = static_cast<int>(group.edges.size());
  for (const auto& entry : group.ports)
    out.push_back(count[static_cast<size_t>(entry.first)] <= kMaxPortEdges ? next++ : -1);
  return out;
}

// Adds the ports (tiny, pinned to the first or last rank) and their edges.
void addPorts(const LayoutGroup& group, LocalGraph& local) {
  const std::array<int, kPortKinds> at = portItems(group);
  for (int k = 0; k < kPortKinds; ++k) {
    if (at[static_cast<size_t>(k)] < 0) continue;
    local.sizes.emplace_back(kPortSize, kPortSize);
    local.round.push_back(false);
    (portAtBottom(static_cast<Port>(k)) ? local.bottom : local.top).push_back(at[static_cast<size_t>(k)]);
  }
  const std::vector<int> routed = portEdgeIndices(group);
  for (size_t i = 0; i < group.ports.size(); ++i) {
    if (routed[i] < 0) continue;
    const auto& [port, item] = group.ports[i];
    const int p = at[static_cast<size_t>(port)];
    local.edges.push_back(portAtBottom(port) ? std::make_pair(item, p) : std::make_pair(p, item));
  }
}

// A stub sits on its use's rank, beside it, not a rank above.
void keepStubsBesideUses(const GraphData& data, const LayoutGroup& group, LocalGraph& local) {
  std::map<int, std::vector<int>> stubsOf;  // use -> its stubs
  for (const auto& [from, to] : group.edges) {
    const int node = group.items[static_cast<size_t>(from)].node;
    if (node >= 0 && data.nodes[static_cast<size_t>(node)].kind == GraphNodeKind::Stub) stubsOf[to].push_back(from);
  }
  for (auto& [use, stubs] : stubsOf) {
    stubs.push_back(use);
    local.sameRank.push_back(std::move(stubs));
  }
}

double titleWidth(const LayoutGroup& group) {
  if (group.synthetic) return 0;
  const QString last = group.scope.section(QLatin1Char('/'), -1);
  return static_cast<double>(last.size()) * kTitleChar + 2 * kPad;
}

// Everything the laying out of structures shares.
struct Layouter {
  const GraphData& data;
  const GroupTree& tree;
  const Structures& structures;
  GVC_t* gvc;
  LayoutCache& cache;
  const LayoutHooks& hooks;
  std::vector<QSizeF> nodeSizes;        // per GraphData node
  std::vector<SharedGroupLayout> laid;  // per structure
  std::vector<QSizeF> boxes;            // per structure: its frame's size in a parent
  LayoutStats stats;
  QString error;

  // The items' sizes: per item, the largest over the structure's groups.
  LocalGraph localGraph(int structure) const {
    const std::vector<int>& groups = structures.groups[static_cast<size_t>(structure)];
    const LayoutGroup& first = tree.groups[static_cast<size_t>(groups.front())];
    LocalGraph local;
    local.edges = first.edges;
    local.sizes.resize(first.items.size());
    local.round.resize(first.items.size());
    for (int g : groups) {
      const auto& items = tree.groups[static_cast<size_t>(g)].items;
      for (size_t i = 0; i < items.size(); ++i) {
        const QSizeF size = items[i].group >= 0
                                ? boxes[static_cast<size_t>(structures.of[static_cast<size_t>(items[i].group)])]
                                : nodeSizes[static_cast<size_t>(items[i].node)];
        local.sizes[i] = local.sizes[i].expandedTo(size);
        local.round[i] =
            items[i].node >= 0 && data.nodes[static_cast<size_t>(items[i].node)].kind == GraphNodeKind::Input;
      }
    }
    addPorts(first, local);
    keepStubsBesideUses(data, first, local);
    return local;
  }

  std::string cacheKey(int structure, const LocalGraph& local) const {
    std::string key = structures.keys[static_cast<size_t>(structure)];
    for (const QSizeF& size : local.sizes) {
      put(key, static_cast<int>(std::lround(size.width() * 2)));
      put(key, static_cast<int>(std::lround(size.height() * 2)));
    }
    return key;
  }

  // False when cancelled or dot failed.
  bool layOut(int structure) {
    const LocalGraph local = localGraph(structure);
    const std::string key = cacheKey(structure, local);
    SharedGroupLayout layout = cache.find(key);
    if (!layout) {
      if (hooks.cancelled && hooks.cancelled()) return false;
      auto ran = runDotLayout(gvc, local, &error);
      if (!ran && !(local.top.empty() && local.bottom.empty() && local.sameRank.empty())) {
        // Rank constraints are a nicety: should dot refuse them, lay out without.
        LocalGraph plain = local;
        plain.top.clear();
        plain.bottom.clear();
        plain.sameRank.clear();
        error.clear();
        ran = runDotLayout(gvc, plain, &error);
        ++stats.dotRuns;
      }
      if (!ran) return false;
      ++stats.dotRuns;
      stats.maxDotNodes = std::max(stats.maxDotNodes, static_cast<int>(local.sizes.size()));
      layout = std::make_shared<const GroupLayout>(std::move(*ran));
      cache.insert(key, layout);
    }
    laid[static_cast<size_t>(structure)] = layout;
    double title = 0;
    for (int g : structures.groups[static_cast<size_t>(structure)])
      title = std::max(title, titleWidth(tree.groups[static_cast<size_t>(g)]));
    const bool synthetic =
        tree.groups[static_cast<size_t>(structures.groups[static_cast<size_t>(structure)].front())].synthetic;
    const QSizeF pad = synthetic ? QSizeF(2 * kPartPad, 2 * kPartPad) : QSizeF(2 * kPad, 2 * kPad + kTitle);
    boxes[static_cast<size_t>(structure)] = (layout->size + pad).expandedTo(QSizeF(title, 0));
    return true;
  }
};

// A straight line as one cubic segment.
void lineTo(std::vector<QPointF>& points, QPointF from, QPointF to) {
  const QPointF d = to - from;
  points.insert(points.end(), {from + d / 3, from + d * 2 / 3, to});
}

// Places every group's layout (parents before children) and gives every node
// its rect, every unfolded hyperfunction its frame, every edge its path.
class Composer {
 public:
  Composer(const GraphData& data, const GroupTree& tree, const Structures& s, const Layouter& l)
      : m_data(data), m_tree(tree), m_s(s), m_l(l), m_origin(tree.groups.size()), m_cluster(tree.groups.size(), -1) {
    m_portEdges.reserve(tree.groups.size());
    for (const LayoutGroup& group : tree.groups) m_portEdges.push_back(portEdgeIndices(group));
  }

  void compose(const std::vector<int>& preOrder, GraphLayout& out) {
    out.nodeRects.resize(m_data.nodes.size());
    out.nodeCluster.assign(m_data.nodes.size(), -1);
    for (int g : preOrder) placeItems(g, out);  // frames then come in graph order
    out.bounds = QRectF(QPointF(0, 0), layoutOf(0).size);
    makeBundles(out);
    out.edges.reserve(m_data.edges.size());
    for (size_t e = 0; e < m_data.edges.size(); ++e) out.edges.push_back(edgePath(static_cast<int>(e), out));
  }

 private:
  const GroupLayout& layoutOf(int g) const { return *m_l.laid[static_cast<size_t>(m_s.of[static_cast<size_t>(g)])]; }

  void placeItems(int g, GraphLayout& out) {
    const LayoutGroup& group = m_tree.groups[static_cast<size_t>(g)];
    const GroupLayout& layout = layoutOf(g);
    const QPointF origin = m_origin[static_cast<size_t>(g)];
    for (size_t i = 0; i < group.items.size(); ++i) {
      const QRectF rect = layout.items[i].translated(origin);
      const GroupItem item = group.items[i];
      if (item.node >= 0) {
        out.nodeRects[static_cast<size_t>(item.node)] = rect;
        out.nodeCluster[static_cast<size_t>(item.node)] = m_cluster[static_cast<size_t>(g)];
        continue;
      }
      const LayoutGroup& child = m_tree.groups[static_cast<size_t>(item.group)];
      const QSizeF content = layoutOf(item.group).size;
      const double top = child.synthetic ? kPartPad : kPad + kTitle;
      m_origin[static_cast<size_t>(item.group)] = rect.topLeft() + QPointF((rect.width() - content.width()) / 2, top);
      m_cluster[static_cast<size_t>(item.group)] = m_cluster[static_cast<size_t>(g)];
      if (child.synthetic) continue;
      m_cluster[static_cast<size_t>(item.group)] = static_cast<int>(out.clusters.size());
      out.clusters.push_back({child.scope, rect, m_cluster[static_cast<size_t>(g)]});
    }
  }

  // One bundle per edge of every group, in that group's place.
  void makeBundles(GraphLayout& out) {
    m_bundleBase.assign(m_tree.groups.size(), 0);
    for (size_t g = 0; g < m_tree.groups.size(); ++g) {
      m_bundleBase[g] = static_cast<int>(out.bundles.size());
      const QPointF origin = m_origin[g];
      for (const LayoutEdge& edge : layoutOf(static_cast<int>(g)).edges) {
        LayoutBundle bundle;
        bundle.cluster = m_cluster[g];
        bundle.points.reserve(edge.points.size() + 1);
        for (const QPointF& p : edge.points) bundle.points.push_back(p + origin);
        if (edge.hasArrow) bundle.points.push_back(edge.arrowTip + origin);
        out.bundles.push_back(std::move(bundle));
      }
    }
  }

  // A group's laid-out edge in its place, as points along the data flow,
  // ending at the arrow's tip.
  std::vector<QPointF> piece(int g, int localEdge, bool reversed) const {
    const LayoutEdge& edge = layoutOf(g).edges[static_cast<size_t>(localEdge)];
    const QPointF origin = m_origin[static_cast<size_t>(g)];
    std::vector<QPointF> points;
    points.reserve(edge.points.size() + 3);
    for (const QPointF& p : edge.points) points.push_back(p + origin);
    if (edge.hasArrow && !points.empty()) lineTo(points, points.back(), edge.arrowTip + origin);
    if (reversed) std::reverse(points.begin(), points.end());  // a bezier run backwards is the same curve
    return points;
  }

  // Between a port dot did not route and its item: a straight line.
  std::vector<QPointF> straightPiece(int g, Port port, int item, bool inward) const {
    const GroupLayout& layout = layoutOf(g);
    const QPointF origin = m_origin[static_cast<size_t>(g)];
    const int p = portItems(m_tree.groups[static_cast<size_t>(g)])[static_cast<size_t>(port)];
    const QPointF at = layout.items[static_cast<size_t>(p)].center() + origin;
    const QRectF box = layout.items[static_cast<size_t>(item)].translated(origin);
    const QPointF end(box.center().x(), portAtBottom(port) ? box.bottom() : box.top());
    std::vector<QPointF> points{inward ? at : end};
    lineTo(points, points.front(), inward ? end : at);
    return points;
  }

  // From `node` out through the ports of its groups up to `home` (sources:
  // innermost first), or in from `home` down to it (targets: the same order,
  // the caller reverses).
  void portPieces(int node, int home, Port port, std::vector<std::vector<QPointF>>& out) const {
    int g = m_tree.nodeGroup[static_cast<size_t>(node)], item = m_tree.nodeItem[static_cast<size_t>(node)];
    while (g != home) {
      const LayoutGroup& group = m_tree.groups[static_cast<size_t>(g)];
      const auto at = std::lower_bound(group.ports.begin(), group.ports.end(), std::make_pair(port, item));
      const int local = m_portEdges[static_cast<size_t>(g)][static_cast<size_t>(at - group.ports.begin())];
      const bool inward = port == Port::InAbove || port == Port::InBelow;
      // Laid out port -> item at the top, item -> port at the bottom.
      out.push_back(local >= 0 ? piece(g, local, inward == portAtBottom(port)) : straightPiece(g, port, item, inward));
      item = group.itemInParent;
      g = group.parent;
    }
  }

  // The edge's route: out of the source's groups through their ports, along
  // the edge of the group holding both ends, in through the target's ports.
  LayoutEdge edgePath(int e, const GraphLayout& out) const {
    const GraphEdge& edge = m_data.edges[static_cast<size_t>(e)];
    const GroupTree::Route route = m_tree.edgeRoutes[static_cast<size_t>(e)];
    const bool up = m_tree.runsUp(e);
    std::vector<std::vector<QPointF>> pieces, inward;
    portPieces(edge.from, route.group, up ? Port::OutAbove : Port::OutBelow, pieces);
    pieces.push_back(piece(route.group, route.edge, false));
    portPieces(edge.to, route.group, up ? Port::InBelow : Port::InAbove, inward);
    pieces.insert(pieces.end(), inward.rbegin(), inward.rend());
    LayoutEdge path;
    path.from = edge.from;
    path.to = edge.to;
    path.bundle = m_bundleBase[static_cast<size_t>(route.group)] + route.edge;
    for (const std::vector<QPointF>& p : pieces) {
      if (p.empty()) continue;
      if (path.points.empty())
        path.points.push_back(p.front());
      else if (QLineF(path.points.back(), p.front()).length() > 0.5)
        lineTo(path.points, path.points.back(), p.front());
      path.points.insert(path.points.end(), p.begin() + 1, p.end());
    }
    if (path.points.size() < 4) {  // dot left it unrouted: straight
      const QRectF from = out.nodeRects[static_cast<size_t>(edge.from)],
                   to = out.nodeRects[static_cast<size_t>(edge.to)];
      path.points = {QPointF(from.center().x(), from.bottom())};
      lineTo(path.points, path.points.front(), QPointF(to.center().x(), to.top()));
    }
    endWithArrow(path);
    return path;
  }

  // The last point is the arrow's tip: the curve stops an arrowhead short of it.
  static void endWithArrow(LayoutEdge& path) {
    const QPointF tip = path.points.back();
    const QPointF before = path.points[path.points.size() - 2];
    const double length = QLineF(before, tip).length();
    if (length < 1e-6) return;
    path.points.back() = tip - (tip - before) * (std::min(kArrow, length) / length);
    path.hasArrow = true;
    path.arrowTip = tip;
  }

  const GraphData& m_data;
  const GroupTree& m_tree;
  const Structures& m_s;
  const Layouter& m_l;
  std::vector<QPointF> m_origin;              // per group: its content's top left
  std::vector<int> m_cluster;                 // per group: its frame (or the nearest one around it)
  std::vector<int> m_bundleBase;              // per group: its first bundle
  std::vector<std::vector<int>> m_portEdges;  // per group: portEdgeIndices
};

}  // namespace

GraphLayout layoutHierarchically(const GraphData& data, GVC_t* gvc, LayoutCache& cache, const LayoutHooks& hooks) {
  QElapsedTimer timer;
  timer.start();
  GraphLayout out;
  if (data.nodes.empty()) return out;
  const GroupTree tree = buildGroupTree(data, kMaxNodesPerDotRun);
  const std::vector<int> postOrder = tree.postOrder();
  const Structures structures = findStructures(data, tree, postOrder);
  Layouter layouter{data, tree, structures, gvc, cache, hooks, {}, {}, {}, {}, {}};
  layouter.nodeSizes.reserve(data.nodes.size());
  for (const GraphNode& node : data.nodes) layouter.nodeSizes.push_back(nodeBoxSize(node));
  layouter.laid.resize(structures.keys.size());
  layouter.boxes.resize(structures.keys.size());
  const int total = static_cast<int>(structures.keys.size());
  for (int s = 0; s < total; ++s) {
    if (!layouter.layOut(s)) {
      out.error = layouter.error;
      out.cancelled = layouter.error.isEmpty();
      return out;
    }
    if (hooks.progress) hooks.progress(s + 1, total);
  }
  Composer(data, tree, structures, layouter).compose(tree.preOrder(), out);
  out.stats = layouter.stats;
  out.stats.groups = static_cast<int>(tree.groups.size());
  out.stats.structures = total;
  out.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  return out;
}

}  // namespace dfc::views
