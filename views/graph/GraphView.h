#pragma once
// The operator graph: rounded boxes coloured by op type, section,
// hypersection or hyperfunction (legendEntries() says which colour is what),
// bezier edges with arrowheads, one frame per hyperfunction. Layout runs off
// the UI thread; the view shows a notice meanwhile. Wheel zooms around the
// cursor, drag pans, labels hide when zoomed out. Given the IR (setModel),
// hyperfunctions fold into one node and unfold on double-click; only what is
// shown is laid out.
// Readable on open: the first layout after a model is fitted once the view
// is shown at its real size (a load while another screen shows must not fit
// into a hidden, tiny viewport); when fitting the whole graph would make its
// labels smaller than kReadableLabelPx, the graph folds by hyperfunction,
// and if even that does not fit readably, it opens at the readable zoom at
// its top. Until the user zooms or pans, a resize fits again.
#include <QGraphicsView>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphDetails.h"
#include "graph/GraphLayout.h"
#include "graph/GraphStyle.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

class GraphLayouter;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  static constexpr double kLabelPx = 10;          // node label font, in scene units
  static constexpr double kReadableLabelPx = 9;   // smallest label size a fit may leave

  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Shows the graph once its layout arrives; replaces any earlier graph.
  void setGraph(GraphData data);
  // Keeps the IR and plan so hyperfunctions can fold and unfold, and node
  // details can name attributes, shapes and estimates.
  void setModel(std::shared_ptr<const ir::Graph> graph, std::shared_ptr<const partition::Plan> plan,
                GraphDataOptions options = {});
  void clear();
  // Draws a thick border around the nodes of one section (-1: none); a
  // folded node holding it counts. reveal: scroll them into view too.
  void highlightSection(int sectionId, bool reveal = false);
  int highlightedSection() const { return m_highlighted; }
  // The colours of hypersections, hyperfunctions and sections, shared with
  // the other views of the document. Without one the view makes its own from the plan.
  void setColorIdentity(SharedColorIdentity identity);
  const ColorIdentity& colorIdentity() const;

  // Fit the whole graph (zoom capped at 1.5), or the matched / highlighted
  // nodes; both keep labels readable when the graph allows.
  void fitGraph();
  void fitSelection();
  // Fold every top-level hyperfunction / unfold everything.
  void collapseAll();
  void expandAll();
  // Screen size of a node label (px) at the current zoom.
  double labelPixelSize() const { return kLabelPx * zoom(); }
  // The drawn graph's bounding box in viewport pixels (empty without a layout).
  QRect visibleGraphRect() const;
  // Nodes whose colour key is `key` in the current mode (a legend entry):
  // highlighted like search matches and shown.
  QList<int> selectKey(const QString& key);
  // Nodes holding ops of the hypersection `name` (compare: the other side's pick).
  QList<int> selectHypersection(const QString& name);

  // Folding (needs setModel). Each call relays out what is then shown.
  bool isCollapsed(const QString& scope) const { return m_data.collapsedScopes.count(scope) > 0; }
  void collapse(const QString& scope);
  void expand(const QString& scope);
  void toggleCollapsed(const QString& scope);

  void setColorMode(GraphColorMode mode);
  GraphColorMode colorMode() const { return m_colorMode; }
  std::vector<LegendEntry> legend() const { return legendEntries(m_data, m_colorMode, colorIdentity(), m_overlay.get()); }
  // The figures of the data overlay colour modes (from the schedule); null clears them.
  void setOverlay(std::shared_ptr<const GraphOverlay> overlay);
  const GraphOverlay* overlay() const { return m_overlay.get(); }

  // Nodes whose name, op or label contains `text` (case-insensitive; a folded
  // hyperfunction matches when one of its ops does). Highlights them and
  // centres on the first. An empty text clears the highlight.
  QList<int> findNodes(const QString& text);
  NodeDetails nodeDetails(int index) const;
  void selectNode(int index);  // emits nodeSelected
  // The highlighted nodes: search matches, a legend pick, or Ctrl+clicked
  // nodes (a Ctrl+click adds a node or takes it out again).
  const QList<int>& highlightedNodes() const { return m_matches; }
  void toggleHighlighted(int index);
  int nodeAtViewPos(QPoint pos) const { return nodeAt(pos); }

  // Exports what is shown. False (and `error` set) if the file cannot be written.
  QString dotSource() const;
  bool exportDot(const QString& path, QString* error = nullptr) const;
  bool exportSvg(const QString& path, QString* error = nullptr);
  bool exportPng(const QString& path, QString* error = nullptr);

  const GraphData& graph() const { return m_data; }
  bool isLayoutPending() const { return m_pending; }
  bool hasLayout() const { return m_hasLayout; }
  const GraphLayout& currentLayout() const { return m_layout; }
  bool labelsVisible() const { return m_labelsVisible; }
  double zoom() const { return transform().m11(); }
  void setZoom(double factor);

 signals:
  void layoutShown();
  void layoutFailed(const QString& message);
  void nodeActivated(int graphNodeIndex);
  void nodeSelected(const dfc::views::NodeDetails& details);
  void legendChanged();
  void zoomChanged(double factor);
  // The graph was folded by hyperfunction to open readably.
  void autoFolded();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void onLayoutReady(const GraphLayout& layout);
  void showMessage(const QString& text);
  void buildScene();
  void rebuildFromModel();
  void applyNodeStyles();
  void updateLabelVisibility();
  int nodeAt(QPoint pos) const;
  bool showInitialView();          // the readable-on-open rule; true when it folds (a new layout comes)
  bool canShowInitialView() const;  // visible at a usable size
  void fitRect(const QRectF& sceneRect, bool readable);
  void centreOnNodes(const QList<int>& nodes);
  bool holdsSection(const GraphNode& node, int sectionId) const;

  GraphLayouter* m_layouter = nullptr;
  QGraphicsScene* m_scene = nullptr;
  GraphData m_data;
  GraphLayout m_layout;
  std::shared_ptr<const ir::Graph> m_irGraph;
  std::shared_ptr<const partition::Plan> m_plan;
  GraphDataOptions m_options;
  std::vector<QGraphicsItem*> m_nodeItems;
  std::vector<QGraphicsItem*> m_labelItems;
  QList<int> m_matches;
  GraphColorMode m_colorMode = GraphColorMode::Section;
  QString m_focusScope;  // centre on it after the next layout
  SharedColorIdentity m_identity;  // shared with other views, or made from the plan
  bool m_ownIdentity = true;
  std::shared_ptr<const GraphOverlay> m_baseOverlay;  // as given
  std::shared_ptr<const GraphOverlay> m_overlay;      // its ramp fitted to the nodes shown
  bool m_initialViewPending = false;  // fit when shown at full size / resized
  bool m_userMoved = false;          // the user zoomed or panned since the load
  bool m_autoFolded = false;         // this model was folded for readability once
  QPoint m_pressPos;
  int m_highlighted = -1;
  bool m_pending = false;
  bool m_hasLayout = false;
  bool m_labelsVisible = true;
};

}  // namespace dfc::views
