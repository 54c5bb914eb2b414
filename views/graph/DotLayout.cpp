#include "graph/DotLayout.h"

#include <QElapsedTimer>
#include <QSizeF>
#include <QStringList>
#include <map>

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

}  // namespace

QSizeF nodeBoxSize(const GraphNode& node) {
  const QStringList lines = node.label.split(QLatin1Char('\n'));
  qsizetype longest = 1;
  for (const QString& line : lines) longest = std::max(longest, line.size());
  const double width = std::max(48.0, static_cast<double>(longest) * kCharWidth + 18.0);
  const double height = static_cast<double>(lines.size()) * kLineHeight + 12.0;
  return {width, height};
}

GraphLayout runDotLayout(GVC_t* gvc, const GraphData& data) {
  QElapsedTimer timer;
  timer.start();
  GraphLayout layout;
  if (data.nodes.empty()) return layout;

  Agraph_t* g = agopen(cs("dfc"), Agdirected, nullptr);
  agattr(g, AGRAPH, cs("rankdir"), cs("TB"));
  agattr(g, AGRAPH, cs("nodesep"), cs("0.2"));
  agattr(g, AGRAPH, cs("ranksep"), cs("0.35"));
  if (data.nodes.size() > 100) {
    // Bound network-simplex and crossing-minimisation work on big graphs.
    agattr(g, AGRAPH, cs("nslimit"), cs("2"));
    agattr(g, AGRAPH, cs("nslimit1"), cs("2"));
    agattr(g, AGRAPH, cs("mclimit"), cs("0.3"));
  }
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  agattr(g, AGNODE, cs("width"), cs("1"));
  agattr(g, AGNODE, cs("height"), cs("0.5"));
  agattr(g, AGRAPH, cs("label"), cs(""));

  // One cluster per hyperfunction keeps a layer's ops together on screen.
  std::map<QString, Agraph_t*> clusters;
  std::map<std::string, QString> clusterLabel;
  std::vector<Agnode_t*> gvNodes(data.nodes.size(), nullptr);
  for (const GraphNode& node : data.nodes) {
    Agraph_t* parent = g;
    // One cluster per outermost hyperfunction: nested scopes ("h.0/attn") as
    // sibling clusters of "h.0" crash Graphviz 2.42's dot (init_rank / mincross).
    const QString scope = node.hyperfunction.section(QLatin1Char('/'), 0, 0);
    if (!scope.isEmpty() && node.kind != GraphNodeKind::Collapsed) {
      auto it = clusters.find(scope);
      if (it == clusters.end()) {
        const std::string name = "cluster_" + std::to_string(clusters.size());
        Agraph_t* sub = agsubg(g, cs(name.c_str()), 1);
        setAttr(sub, "label", scope.toUtf8());
        clusterLabel[name] = scope;
        it = clusters.emplace(scope, sub).first;
      }
      parent = it->second;
    }
    const std::string name = "n" + std::to_string(node.id);
    Agnode_t* n = agnode(parent, cs(name.c_str()), 1);
    const QSizeF size = nodeBoxSize(node);
    setAttr(n, "width", QByteArray::number(size.width() / kPointsPerInch));
    setAttr(n, "height", QByteArray::number(size.height() / kPointsPerInch));
    gvNodes[static_cast<size_t>(node.id)] = n;
  }
  std::vector<Agedge_t*> gvEdges;
  gvEdges.reserve(data.edges.size());
  for (const GraphEdge& edge : data.edges) {
    gvEdges.push_back(agedge(g, gvNodes[static_cast<size_t>(edge.from)],
                             gvNodes[static_cast<size_t>(edge.to)], nullptr, 1));
  }

  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    layout.error = QStringLiteral("Graphviz dot failed to lay out the graph");
    return layout;
  }

  // Graphviz's y axis points up; flip against the bounding box top.
  const boxf bb = GD_bb(g);
  const double top = bb.UR.y;
  auto flip = [top](pointf p) { return QPointF(p.x, top - p.y); };
  layout.bounds = QRectF(bb.LL.x, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);

  layout.nodeRects.reserve(gvNodes.size());
  for (Agnode_t* n : gvNodes) {
    const QPointF c = flip(ND_coord(n));
    const double w = ND_width(n) * kPointsPerInch;
    const double h = ND_height(n) * kPointsPerInch;
    layout.nodeRects.emplace_back(c.x() - w / 2, c.y() - h / 2, w, h);
  }
  layout.edges.reserve(gvEdges.size());
  for (size_t i = 0; i < gvEdges.size(); ++i) {
    LayoutEdge out;
    out.from = data.edges[i].from;
    out.to = data.edges[i].to;
    const splines* spl = ED_spl(gvEdges[i]);
    if (spl && spl->size > 0) {
      const bezier& bz = spl->list[0];
      for (int k = 0; k < bz.size; ++k) out.points.push_back(flip(bz.list[k]));
      if (bz.eflag) {
        out.hasArrow = true;
        out.arrowTip = flip(bz.ep);
      }
    }
    layout.edges.push_back(std::move(out));
  }
  for (int i = 1; i <= GD_n_cluster(g); ++i) {
    Agraph_t* sub = GD_clust(g)[i];
    const boxf cb = GD_bb(sub);
    const QPointF tl = flip(pointf{cb.LL.x, cb.UR.y});
    const QPointF br = flip(pointf{cb.UR.x, cb.LL.y});
    layout.clusters.push_back({clusterLabel[agnameof(sub)], QRectF(tl, br)});
  }

  gvFreeLayout(gvc, g);
  agclose(g);
  layout.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  return layout;
}

}  // namespace dfc::views
