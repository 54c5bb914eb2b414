#pragma once
// The result of laying out a GraphData: plain coordinates in points, y down,
// index-aligned with the GraphData it came from.
#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

#include "graph/GraphData.h"

namespace dfc::views {

struct LayoutEdge {
  int from = 0;
  int to = 0;
  // Cubic bezier: p0, then (c1, c2, p) triples, as Graphviz returns them.
  std::vector<QPointF> points;
  bool hasArrow = false;
  QPointF arrowTip;  // where the arrowhead points, if hasArrow
  int bundle = -1;   // the GraphLayout bundle it runs along
};

// An unfolded hyperfunction's frame.
struct LayoutCluster {
  QString label;  // the hyperfunction's scope
  QRectF rect;
  int parent = -1;  // the frame around it, -1 at the top level
};

// One edge between two items of a group as that group's layout routes it:
// every graph edge between the same two items (the residual stream from one
// layer into the next) runs along it, and a zoomed-out view draws it once.
struct LayoutBundle {
  std::vector<QPointF> points;  // as LayoutEdge::points
  int cluster = -1;             // the frame it runs in, -1 at the top level
};

struct LayoutStats {
  int groups = 0;      // unfolded hyperfunctions and parts of oversized ones, the top level included
  int structures = 0;  // distinct group structures among them
  int dotRuns = 0;     // structures not found in the cache
  int maxDotNodes = 0;
};

struct GraphLayout {
  quint64 generation = 0;
  std::shared_ptr<const GraphData> source;  // the graph laid out (built on the layout thread too)
  QRectF bounds;
  std::vector<QRectF> nodeRects;  // one per GraphData node
  std::vector<int> nodeCluster;   // per node: the innermost frame around it, -1 at the top level
  std::vector<LayoutEdge> edges;  // one per GraphData edge
  std::vector<LayoutCluster> clusters;  // parents before their children
  std::vector<LayoutBundle> bundles;
  LayoutStats stats;
  QString error;                  // non-empty if layout failed
  bool cancelled = false;
  double elapsedMs = 0;
};

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::GraphLayout)
