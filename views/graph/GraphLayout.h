#pragma once
// The result of laying out a GraphData: plain coordinates in points, y down,
// index-aligned with the GraphData it came from.
#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

namespace dfc::views {

struct LayoutEdge {
  int from = 0;
  int to = 0;
  // Cubic bezier: p0, then (c1, c2, p) triples, as Graphviz returns them.
  std::vector<QPointF> points;
  bool hasArrow = false;
  QPointF arrowTip;  // where the arrowhead points, if hasArrow
};

struct LayoutCluster {
  QString label;  // the hyperfunction
  QRectF rect;
};

struct GraphLayout {
  quint64 generation = 0;
  QRectF bounds;
  std::vector<QRectF> nodeRects;  // one per GraphData node
  std::vector<LayoutEdge> edges;  // one per GraphData edge
  std::vector<LayoutCluster> clusters;
  QString error;                  // non-empty if layout failed
  double elapsedMs = 0;
};

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::GraphLayout)
