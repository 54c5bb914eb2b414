#pragma once
// The operator graph: rounded boxes coloured by section, bezier edges with
// arrowheads, one frame per hyperfunction. Layout runs off the UI thread;
// the view shows a notice meanwhile. Wheel zooms around the cursor, drag pans.
#include <QGraphicsView>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"

namespace dfc::views {

class GraphLayouter;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Shows the graph once its layout arrives; replaces any earlier graph.
  void setGraph(GraphData data);
  void clear();
  // Draws a thick border around the nodes of one section (-1: none).
  void highlightSection(int sectionId);

  const GraphData& graph() const { return m_data; }
  bool isLayoutPending() const { return m_pending; }
  bool hasLayout() const { return m_hasLayout; }
  const GraphLayout& currentLayout() const { return m_layout; }

 signals:
  void layoutShown();
  void layoutFailed(const QString& message);
  void nodeActivated(int graphNodeIndex);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  void onLayoutReady(const GraphLayout& layout);
  void showMessage(const QString& text);
  void buildScene();

  GraphLayouter* m_layouter = nullptr;
  QGraphicsScene* m_scene = nullptr;
  GraphData m_data;
  GraphLayout m_layout;
  std::vector<QGraphicsItem*> m_nodeItems;
  int m_highlighted = -1;
  bool m_pending = false;
  bool m_hasLayout = false;
};

}  // namespace dfc::views
