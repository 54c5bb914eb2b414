#include "graph/DotLayout.h"

#include <QStringList>
#include <atomic>

namespace dfc::views {
namespace {

// Graphviz 2.42 takes char* for read-only strings; the one cast lives here.
char* cs(const char* text) { return const_cast<char*>(text); }

void setAttr(void* obj, const char* name, const QByteArray& value) {
  agsafeset(obj, cs(name), const_cast<char*>(value.constData()), cs(""));
}

constexpr double kPointsPerInch = 72.0;
constexpr double kCharWidth = 6.6;  // average glyph advance of the view's 10 px font
constexpr double kLineHeight = 13.0;

std::atomic<int> g_runs{0};
std::atomic<int> g_maxNodes{0};

void countRun(int nodes) {
  ++g_runs;
  int seen = g_maxNodes.load();
  while (nodes > seen && !g_maxNodes.compare_exchange_weak(seen, nodes)) {
  }
}

Agraph_t* openGraph(size_t nodes) {
  Agraph_t* g = agopen(cs("dfc"), Agdirected, nullptr);
  agattr(g, AGRAPH, cs("rankdir"), cs("TB"));
  agattr(g, AGRAPH, cs("nodesep"), cs("0.2"));
  agattr(g, AGRAPH, cs("ranksep"), cs("0.3"));
  if (nodes > 100) {
    // Bound network-simplex and crossing-minimisation work on big groups.
    agattr(g, AGRAPH, cs("nslimit"), cs("2"));
    agattr(g, AGRAPH, cs("nslimit1"), cs("2"));
    agattr(g, AGRAPH, cs("mclimit"), cs("0.3"));
  }
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  agattr(g, AGNODE, cs("width"), cs("1"));
  agattr(g, AGNODE, cs("height"), cs("0.5"));
  return g;
}

// Keeps `items` on the first (min), the last (max) or one (same) rank.
void pinRank(Agraph_t* g, const std::vector<Agnode_t*>& nodes, const std::vector<int>& items, const char* rank,
             size_t index = 0) {
  if (items.empty()) return;
  Agraph_t* sub = agsubg(g, cs((std::string("rank_") + rank + std::to_string(index)).c_str()), 1);
  setAttr(sub, "rank", rank);
  for (int item : items) agsubnode(sub, nodes[static_cast<size_t>(item)], 1);
}

// Reads dot's coordinates back, flipping its y axis (up) to the view's (down).
GroupLayout readBack(Agraph_t* g, const std::vector<Agnode_t*>& nodes, const std::vector<Agedge_t*>& edges,
                     const LocalGraph& graph) {
  const boxf bb = GD_bb(g);
  auto flip = [&bb](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
  GroupLayout out;
  out.size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
  out.items.reserve(nodes.size());
  for (Agnode_t* n : nodes) {
    const QPointF c = flip(ND_coord(n));
    const double w = ND_width(n) * kPointsPerInch, h = ND_height(n) * kPointsPerInch;
    out.items.emplace_back(c.x() - w / 2, c.y() - h / 2, w, h);
  }
  out.edges.reserve(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    LayoutEdge e;
    e.from = graph.edges[i].first;
    e.to = graph.edges[i].second;
    const splines* spl = ED_spl(edges[i]);
    if (spl && spl->size > 0) {
      const bezier& bz = spl->list[0];
      for (int k = 0; k < bz.size; ++k) e.points.push_back(flip(bz.list[k]));
      if (bz.eflag) {
        e.hasArrow = true;
        e.arrowTip = flip(bz.ep);
      }
    }
    out.edges.push_back(std::move(e));
  }
  return out;
}

}  // namespace

QSizeF nodeBoxSize(const GraphNode& node) {
  const QStringList lines = node.label.split(QLatin1Char('\n'));
  qsizetype longest = 1;
  for (const QString& line : lines) longest = std::max(longest, line.size());
  if (node.kind == GraphNodeKind::Stub) return {std::max(26.0, static_cast<double>(longest) * kCharWidth + 12.0), 18.0};
  const double width = std::max(48.0, static_cast<double>(longest) * kCharWidth + 18.0);
  const double height = static_cast<double>(lines.size()) * kLineHeight + 12.0;
  return {width, height};
}

std::optional<GroupLayout> runDotLayout(GVC_t* gvc, const LocalGraph& graph, QString* error) {
  if (graph.sizes.empty()) return GroupLayout{};
  countRun(static_cast<int>(graph.sizes.size()));
  Agraph_t* g = openGraph(graph.sizes.size());
  std::vector<Agnode_t*> nodes;
  nodes.reserve(graph.sizes.size());
  for (size_t i = 0; i < graph.sizes.size(); ++i) {
    const std::string name = "n" + std::to_string(i);
    Agnode_t* n = agnode(g, cs(name.c_str()), 1);
    setAttr(n, "width", QByteArray::number(graph.sizes[i].width() / kPointsPerInch));
    setAttr(n, "height", QByteArray::number(graph.sizes[i].height() / kPointsPerInch));
    if (graph.round[i]) setAttr(n, "shape", "ellipse");
    nodes.push_back(n);
  }
  pinRank(g, nodes, graph.top, "min");
  pinRank(g, nodes, graph.bottom, "max");
  for (size_t i = 0; i < graph.sameRank.size(); ++i) pinRank(g, nodes, graph.sameRank[i], "same", i);
  std::vector<Agedge_t*> edges;
  edges.reserve(graph.edges.size());
  for (const auto& [from, to] : graph.edges)
    edges.push_back(agedge(g, nodes[static_cast<size_t>(from)], nodes[static_cast<size_t>(to)], nullptr, 1));
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    if (error) *error = QStringLiteral("Graphviz dot failed to lay out the graph");
    return std::nullopt;
  }
  GroupLayout out = readBack(g, nodes, edges, graph);
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

DotRunStats dotRunStats() { return {g_runs.load(), g_maxNodes.load()}; }

void resetDotRunStats() {
  g_runs = 0;
  g_maxNodes = 0;
}

}  // namespace dfc::views
