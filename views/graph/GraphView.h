#pragma once
// The operator graph: rounded boxes coloured by op type, section,
// hypersection or hyperfunction (legendEntries() says which colour is what),
// bezier edges with arrowheads, one frame per unfolded hyperfunction. Layout
// runs off the UI thread, group by group (HierarchicalLayout); a layout that
// takes longer than half a second shows its progress and a Cancel button,
// and the picture shown so far stays (and pans) meanwhile. One scene item
// draws the graph (GraphCanvas) with culling and level of detail. Wheel zooms
// around the cursor, drag pans. Given the IR (setModel), hyperfunctions fold
// into one node and unfold on double-click, in place: the clicked node (or
// frame) stays where it was on screen; only what is shown is laid out.
// Readable on open: the first layout after a model is fitted once the view
// is shown at its real size (a load while another screen shows must not fit
// into a hidden, tiny viewport); when fitting the whole graph would make its
// labels smaller than kReadableLabelPx, the graph folds by hyperfunction
// (once, on open only), and if even that does not fit readably, it opens at
// the readable zoom at its top. After Fit, a resize fits again until the
// user zooms or pans; otherwise a resize keeps the view's centre.
#include <QGraphicsView>
#include <QTimer>
#include <memory>

#include "graph/GraphCanvas.h"
#include "graph/GraphData.h"
#include "graph/GraphDetails.h"
#include "graph/GraphLayout.h"
#include "graph/GraphLayoutWorker.h"
#include "graph/GraphStyle.h"
#include "style/ColorIdentity.h"

class QGraphicsSimpleTextItem;

namespace dfc::views {

class GraphLayouter;
class LayoutProgress;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  static constexpr double kLabelPx = 10;          // node label font, in scene units
  static constexpr double kReadableLabelPx = 9;   // smallest label size a fit may leave
  static constexpr int kProgressDelayMs = 500;    // a layout that takes longer shows progress and Cancel
  static constexpr double kEdgeHoverPx = 4;       // an edge within this many pixels of the pointer is hovered

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

  // Fit the whole graph, or the matched / highlighted nodes: their bounding
  // box fills the pane in one dimension (zoom capped at 1.5 for tiny graphs).
  void fitGraph();
  void fitSelection();
  // Fold every top-level hyperfunction / unfold everything.
  void collapseAll();
  void expandAll();
  // Drops the layout in progress; the graph shown stays as it was.
  void cancelLayout();
  // Screen size of a node label (px) at the current zoom.
  double labelPixelSize() const { return kLabelPx * zoom(); }
  // The drawn graph's bounding box in viewport pixels (empty without a layout).
  QRect visibleGraphRect() const;
  // Operator nodes (not folded layers, inputs or stubs) whose box is inside the viewport.
  int operatorsOnScreen() const;
  // Nodes whose colour key is `key` in the current mode (a legend entry):
  // highlighted like search matches and shown.
  QList<int> selectKey(const QString& key);
  // Nodes holding ops of the hypersection `name` (compare: the other side's pick).
  QList<int> selectHypersection(const QString& name);
  // Nodes holding ops of any of these sections (compare: a group of sections).
  QList<int> selectSections(const std::set<int>& sections);

  // Folding (needs setModel). Each call relays out what is then shown.
  // The fold state asked for (a layout for it may still be on its way).
  bool isCollapsed(const QString& scope) const { return requestedFold().count(scope) > 0; }
  void collapse(const QString& scope);
  void expand(const QString& scope);
  void toggleCollapsed(const QString& scope);

  void setColorMode(GraphColorMode mode);
  GraphColorMode colorMode() const { return m_colorMode; }
  std::vector<LegendEntry> legend() const {
    return legendEntries(*m_data, m_colorMode, colorIdentity(), m_overlay.get());
  }
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
  // What hovering `pos` (viewport coordinates) shows: a node's figures, a
  // section boundary edge's cut reason, a frame's name; "" for empty space.
  QString toolTipAtViewPos(QPoint pos) const { return toolTipAt(pos); }
  // For an edge of the shown layout between two sections: why the section it
  // enters starts apart from the one before it (the PEF's recorded cut); "" otherwise.
  QString boundaryToolTip(int layoutEdge) const;

  // Operators a pending decision names, each with what it says ("cut before"):
  // their nodes (a folded layer when it holds one) carry a badge, the tooltip the note.
  void setDecisionMarks(std::map<ir::NodeId, QString> notes);
  bool isMarked(int index) const;  // a node of graph() carries the badge
  // Exports leave the selection (highlight, section outline, decision badges)
  // out unless this is on.
  void setExportsSelection(bool on) { m_exportSelection = on; }
  bool exportsSelection() const { return m_exportSelection; }

  // Exports what is shown. False (and `error` set) if the file cannot be written.
  QString dotSource() const;
  bool exportDot(const QString& path, QString* error = nullptr) const;
  bool exportSvg(const QString& path, QString* error = nullptr);
  bool exportPng(const QString& path, QString* error = nullptr);

  const GraphData& graph() const { return *m_data; }
  bool isLayoutPending() const { return m_pending; }
  bool hasLayout() const { return m_hasLayout; }
  const GraphLayout& currentLayout() const { return *m_layout; }
  const GraphCanvas::PaintStats& lastPaint() const { return m_canvas->lastPaint(); }
  bool labelsVisible() const { return zoom() >= GraphCanvas::kLabelZoom; }
  double zoom() const { return transform().m11(); }
  void setZoom(double factor);

 signals:
  void layoutShown();
  void layoutFailed(const QString& message);
  void layoutProgress(int done, int total);
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
  bool viewportEvent(QEvent* event) override;

 private:
  // Where a fold or unfold keeps its place: a scope's node or frame (or a
  // node by name) and where its top centre was in the viewport.
  struct Anchor {
    QString scope;
    QPointF viewPos;
    bool valid = false;
  };

  void onLayoutReady(const std::shared_ptr<const GraphLayout>& layout);
  void startLayout(GraphSource source, int ops, bool keepPicture);
  void takeGraph(std::shared_ptr<const GraphData> data);
  std::set<QString> requestedFold() const;
  void showMessage(const QString& text);
  void rebuildFromModel();
  void applyNodeStyles();
  int nodeAt(QPoint pos) const;
  QString toolTipAt(QPoint pos) const;
  QString decisionNote(int index) const;
  bool showInitialView();           // the readable-on-open rule; true when it folds (a new layout comes)
  bool canShowInitialView() const;  // visible at a usable size
  void fitRect(const QRectF& sceneRect, bool readable);
  void applyZoom(double factor);
  void centreOnNodes(const QList<int>& nodes);
  bool holdsSection(const GraphNode& node, int sectionId) const;
  bool showsGraph() const { return m_canvas->data() == m_data.get(); }  // the picture is of graph()
  void updateSceneRect();
  Anchor anchorOn(const QString& scope) const;  // a scope's node or frame as it is shown now
  Anchor anchorAtCentre() const;                // the top-level item nearest the view's centre
  void restoreAnchor();
  void userMoved();
  // Renders `source` of the scene with every label, without the selection unless exports show it.
  void renderForExport(QPainter* painter, const QRectF& target, const QRectF& source);

  GraphLayouter* m_layouter = nullptr;
  QGraphicsScene* m_scene = nullptr;
  GraphCanvas* m_canvas = nullptr;
  QGraphicsSimpleTextItem* m_message = nullptr;
  LayoutProgress* m_progress = nullptr;
  QTimer m_progressDelay;
  // The graph shown (what graph() returns), or given by setGraph and on its
  // way; a fold's new graph is built with its layout and replaces it then.
  std::shared_ptr<const GraphData> m_data;
  std::shared_ptr<const GraphLayout> m_layout;  // the layout shown (of m_canvas->data())
  std::shared_ptr<const ir::Graph> m_irGraph;
  std::shared_ptr<const partition::Plan> m_plan;
  GraphDataOptions m_options;
  QList<int> m_matches;
  GraphColorMode m_colorMode = GraphColorMode::Section;
  Anchor m_anchor;                 // restored after the next layout
  SharedColorIdentity m_identity;  // shared with other views, or made from the plan
  bool m_ownIdentity = true;
  std::shared_ptr<const GraphOverlay> m_baseOverlay;  // as given
  std::shared_ptr<const GraphOverlay> m_overlay;      // its ramp fitted to the nodes shown
  bool m_initialViewPending = false;                  // fit when shown at full size
  bool m_fitted = false;                              // the whole graph is fitted: a resize fits again
  bool m_openingModel = false;  // the next layout is a model's first: it may fold to open readably
  bool m_autoFolded = false;    // this model was folded for readability once
  QPoint m_pressPos;
  int m_highlighted = -1;
  std::map<ir::NodeId, QString> m_decisionNotes;
  bool m_exportSelection = false;
  bool m_plainStyles = false;  // styles without selection (while an export renders)
  bool m_pending = false;
  bool m_hasLayout = false;
};

}  // namespace dfc::views
