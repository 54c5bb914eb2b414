#include "graph/HierarchicalLayout.h"

#include <QElapsedTimer>
#include <cmath>
#include <QHash>
#include <unordered_map>

#include "graph/DotLayout.h"
#include "graph/GroupTree.h"

namespace dfc::views {
namespace {

constexpr double kPad = 8;        // frame to content
constexpr double kTitle = 16;     // the frame's title line
constexpr double kPartPad = 4;    // around a part of an oversized group (no frame)
constexpr double kTitleChar = 7;  // bold title glyph advance
constexpr double kArrow = 7;      // arrowhead length, as the view draws it

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
        const QSizeF size = items[i].group >= 0 ? boxes[static_cast<size_t>(structures.of[static_cast<size_t>(items[i].group)])]
                                                : nodeSizes[static_cast<size_t>(items[i].node)];
        local.sizes[i] = local.sizes[i].expandedTo(size);
        local.round[i] = items[i].node >= 0 && data.nodes[static_cast<size_t>(items[i].node)].kind == GraphNodeKind::Input;
      }
    }
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
      if (!ran) return false;
      ++stats.dotRuns;
      stats.maxDotNodes = std::max(stats.maxDotNodes, static_cast<int>(local.sizes.size()));
      layout = std::make_shared<const GroupLayout>(std::move(*ran));
      cache.insert(key, layout);
    }
    laid[static_cast<size_t>(structure)] = layout;
    double title = 0;
    for (int g : structures.groups[static_cast<size_t>(structure)]) title = std::max(title, titleWidth(tree.groups[static_cast<size_t>(g)]));
    const bool synthetic = tree.groups[static_cast<size_t>(structures.groups[static_cast<size_t>(structure)].front())].synthetic;
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
      : m_data(data), m_tree(tree), m_s(s), m_l(l), m_origin(tree.groups.size()), m_cluster(tree.groups.size(), -1) {}

  void compose(const std::vector<int>& postOrder, GraphLayout& out) {
    out.nodeRects.resize(m_data.nodes.size());
    out.nodeCluster.assign(m_data.nodes.size(), -1);
    for (auto it = postOrder.rbegin(); it != postOrder.rend(); ++it) placeItems(*it, out);
    out.bounds = QRectF(QPointF(0, 0), layoutOf(0).size);
    makeBundles(out);
    out.edges.reserve(m_data.edges.size());
    for (size_t e = 0; e < m_data.edges.size(); ++e) out.edges.push_back(edgePath(static_cast<int>(e), out));
  }

 private:
  const GroupLayout& layoutOf(int g) const {
    return *m_l.laid[static_cast<size_t>(m_s.of[static_cast<size_t>(g)])];
  }

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

  // The group's edge between the two items holding the ends, continued
  // inside an unfolded item to the node itself.
  LayoutEdge edgePath(int e, const GraphLayout& out) const {
    const GraphEdge& edge = m_data.edges[static_cast<size_t>(e)];
    const GroupTree::Route route = m_tree.edgeRoutes[static_cast<size_t>(e)];
    const LayoutEdge& base = layoutOf(route.group).edges[static_cast<size_t>(route.edge)];
    const QPointF origin = m_origin[static_cast<size_t>(route.group)];
    const QRectF from = out.nodeRects[static_cast<size_t>(edge.from)], to = out.nodeRects[static_cast<size_t>(edge.to)];
    LayoutEdge path;
    path.from = edge.from;
    path.to = edge.to;
    path.bundle = m_bundleBase[static_cast<size_t>(route.group)] + route.edge;
    if (base.points.empty()) {  // dot left it unrouted: straight
      path.points.push_back(QPointF(from.center().x(), from.bottom()));
      lineTo(path.points, path.points.front(), QPointF(to.center().x(), to.top() - kArrow));
      path.hasArrow = true;
      path.arrowTip = QPointF(to.center().x(), to.top());
      return path;
    }
    std::vector<QPointF> body;
    body.reserve(base.points.size());
    for (const QPointF& p : base.points) body.push_back(p + origin);
    if (m_tree.nodeGroup[static_cast<size_t>(edge.from)] != route.group) {  // from inside an unfolded item
      const QPointF exit(from.center().x(), body.front().y() < from.center().y() ? from.top() : from.bottom());
      path.points.push_back(exit);
      lineTo(path.points, exit, body.front());
      path.points.insert(path.points.end(), body.begin() + 1, body.end());
    } else {
      path.points = std::move(body);
    }
    finishAtNode(path, base, origin, to, m_tree.nodeGroup[static_cast<size_t>(edge.to)] != route.group);
    return path;
  }

  // Into an unfolded item: on from the item's border to the node, arrow there.
  static void finishAtNode(LayoutEdge& path, const LayoutEdge& base, QPointF origin, const QRectF& to, bool inside) {
    if (!inside) {
      path.hasArrow = base.hasArrow;
      path.arrowTip = base.arrowTip + origin;
      return;
    }
    const QPointF tail = base.hasArrow ? base.arrowTip + origin : path.points.back();
    const bool fromBelow = tail.y() > to.center().y();
    const QPointF tip(to.center().x(), fromBelow ? to.bottom() : to.top());
    lineTo(path.points, path.points.back(), tip + QPointF(0, fromBelow ? kArrow : -kArrow));
    path.hasArrow = true;
    path.arrowTip = tip;
  }

  const GraphData& m_data;
  const GroupTree& m_tree;
  const Structures& m_s;
  const Layouter& m_l;
  std::vector<QPointF> m_origin;  // per group: its content's top left
  std::vector<int> m_cluster;     // per group: its frame (or the nearest one around it)
  std::vector<int> m_bundleBase;  // per group: its first bundle
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
  Composer(data, tree, structures, layouter).compose(postOrder, out);
  out.stats = layouter.stats;
  out.stats.groups = static_cast<int>(tree.groups.size());
  out.stats.structures = total;
  out.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  return out;
}

}  // namespace dfc::views
