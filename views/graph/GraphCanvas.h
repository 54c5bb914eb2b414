#pragma once
// Draws a laid-out graph as one scene item, never one item per node (a 50k-
// node graph would make the scene crawl): only what meets the exposed rect
// (SceneIndex), at the detail the zoom allows. Zoomed in: rounded boxes,
// labels, every edge with its arrowhead. Zoomed out: plain boxes without
// text, and each group's bundled edge once instead of every edge along it.
// Further out, a frame smaller than a few pixels is one box in its main
// colour, its contents left out, so a whole 330-layer stack paints as
// quickly as a small graph.
#include <QBrush>
#include <QGraphicsItem>
#include <QPen>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"
#include "graph/SceneIndex.h"

namespace dfc::views {

class GraphCanvas : public QGraphicsItem {
 public:
  static constexpr double kLabelZoom = 0.45;  // below this, text is unreadable: leave it out
  static constexpr double kDetailZoom = 0.2;  // below this, boxes are plain and edges bundled
  static constexpr double kSummaryPx = 14;    // a frame narrower or lower than this is one box
  static constexpr double kMinSummaryPx = 6;  // ... drawn at least this wide

  // Plain colours, no QPen or QBrush per node: 50k of those cost 50 ms to make.
  struct NodeStyle {
    QColor fill;
    QBrush stripes;  // a folded node's mix of colours; NoBrush: plain `fill`
    QColor base;     // its main colour (a frame drawn as one box takes its contents' commonest)
    QColor text;
    QColor pen;
    float penWidth = 1.2f;
    bool dashed = false;
    bool raised = false;  // a search match or the highlighted section: drawn last, on top
    bool marked = false;  // a pending decision names it: a badge at its top right corner
  };
  // What the last paint drew (the tests and the benchmark read it).
  struct PaintStats {
    int nodes = 0, labels = 0, edges = 0, bundles = 0, summaries = 0, frames = 0;
  };

  GraphCanvas();
  void setGraph(std::shared_ptr<const GraphData> data, std::shared_ptr<const GraphLayout> layout);
  void setStyles(std::vector<NodeStyle> styles);
  // Exports draw everything with labels, whatever the scale.
  void setFullDetail(bool on) { m_fullDetail = on; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  int nodeAt(QPointF scenePos) const;     // -1 if none
  int clusterAt(QPointF scenePos) const;  // the innermost frame there, -1 if none
  // The drawn edge (GraphLayout::edges index) passing within `tolerance` scene units, nearest first; -1 if none.
  int edgeAt(QPointF scenePos, double tolerance) const;
  const PaintStats& lastPaint() const { return m_stats; }
  const GraphData* data() const { return m_data.get(); }
  const std::shared_ptr<const GraphData>& dataPtr() const { return m_data; }
  const GraphLayout* layout() const { return m_layout.get(); }

 private:
  std::vector<char> summarized(double scale) const;
  void indexContents();
  // Frames meeting `area` that are drawn with their contents (not as one box).
  std::vector<int> openFrames(const QRectF& area, const std::vector<char>& summary) const;
  // Nodes / bundles meeting `area` at the top level and directly in `frames`.
  std::vector<int> nodesIn(const QRectF& area, const std::vector<int>& frames) const;
  std::vector<int> bundlesIn(const QRectF& area, const std::vector<int>& frames) const;
  void paintFrames(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool labels);
  void paintEdges(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool detailed, bool arrows);
  void paintSummaries(QPainter* p, const QRectF& area, const std::vector<char>& summary, double scale);
  void paintNodes(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool detailed, bool labels);
  static void paintDecisionBadge(QPainter* p, const QRectF& node);
  bool hidden(int cluster, const std::vector<char>& summary) const {
    return cluster >= 0 && summary[static_cast<size_t>(cluster)];
  }

  std::shared_ptr<const GraphData> m_data;
  std::shared_ptr<const GraphLayout> m_layout;
  std::vector<NodeStyle> m_styles;
  std::vector<QColor> m_clusterColors;  // a frame's commonest node colour
  // Culling follows the frames, so a zoomed-out paint never visits the
  // contents of a frame drawn as one box: the top level's nodes and bundles
  // are found through SceneIndex, a frame's are listed with it.
  SceneIndex m_topNodes, m_topBundles, m_edges, m_clusters;
  std::vector<int> m_topNodeIds, m_topBundleIds;
  std::vector<std::vector<int>> m_frameNodes, m_frameBundles;  // per frame: what lies directly in it
  bool m_fullDetail = false;
  std::vector<char> m_lastSummary;  // frames the last paint drew as one box (hit tests follow it)
  PaintStats m_stats;
};

}  // namespace dfc::views
