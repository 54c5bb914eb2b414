#include "graph/GraphView.h"

#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainterPath>
#include <QWheelEvent>
#include <cmath>

#include "graph/GraphLayouter.h"
#include "graph/SectionPalette.h"

namespace dfc::views {
namespace {

constexpr int kNodeIndexKey = 0;  // QGraphicsItem::data key holding the GraphData index

QPainterPath edgePath(const LayoutEdge& edge) {
  QPainterPath path;
  if (edge.points.empty()) return path;
  path.moveTo(edge.points[0]);
  size_t i = 1;
  for (; i + 2 < edge.points.size(); i += 3)
    path.cubicTo(edge.points[i], edge.points[i + 1], edge.points[i + 2]);
  for (; i < edge.points.size(); ++i) path.lineTo(edge.points[i]);
  return path;
}

QPolygonF arrowHead(QPointF from, QPointF tip) {
  const QPointF d = tip - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1e-6) return {};
  const QPointF u = d / len;
  const QPointF n(-u.y(), u.x());
  const double size = 7.0;
  return QPolygonF({tip, tip - u * size + n * (size * 0.45), tip - u * size - n * (size * 0.45)});
}

}  // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent), m_layouter(new GraphLayouter(this)), m_scene(new QGraphicsScene(this)) {
  setScene(m_scene);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setBackgroundBrush(QColor(0xfb, 0xfb, 0xfb));
  connect(m_layouter, &GraphLayouter::layoutReady, this, &GraphView::onLayoutReady);
  showMessage(tr("Open a PEF to see its operator graph"));
}

GraphView::~GraphView() = default;

void GraphView::setGraph(GraphData data) {
  m_data = std::move(data);
  m_hasLayout = false;
  m_pending = true;
  showMessage(tr("Layout in progress (%n node(s))…", nullptr, static_cast<int>(m_data.nodes.size())));
  m_layouter->requestLayout(m_data);
}

void GraphView::clear() {
  m_data = {};
  m_layout = {};
  m_hasLayout = false;
  m_pending = false;
  showMessage(tr("No graph"));
}

void GraphView::showMessage(const QString& text) {
  m_scene->clear();
  m_nodeItems.clear();
  auto* item = m_scene->addSimpleText(text);
  QFont font = item->font();
  font.setPointSize(12);
  item->setFont(font);
  item->setBrush(QColor(0x66, 0x66, 0x66));
  m_scene->setSceneRect(item->boundingRect().adjusted(-20, -20, 20, 20));
  resetTransform();
  centerOn(item);
}

void GraphView::onLayoutReady(const GraphLayout& layout) {
  m_pending = false;
  if (!layout.error.isEmpty() || layout.nodeRects.size() != m_data.nodes.size()) {
    const QString message = layout.error.isEmpty() ? tr("Layout does not match the graph") : layout.error;
    showMessage(tr("Layout failed: %1").arg(message));
    emit layoutFailed(message);
    return;
  }
  const bool first = !m_hasLayout;
  m_layout = layout;
  m_hasLayout = true;
  buildScene();
  if (first) fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
  emit layoutShown();
}

void GraphView::buildScene() {
  m_scene->clear();
  m_nodeItems.assign(m_data.nodes.size(), nullptr);
  QFont font;
  font.setPixelSize(10);
  QFont clusterFont = font;
  clusterFont.setBold(true);

  for (const LayoutCluster& cluster : m_layout.clusters) {
    auto* frame = m_scene->addRect(cluster.rect, QPen(QColor(0xb0, 0xb0, 0xc0), 1, Qt::DashLine),
                                   QColor(0xf0, 0xf2, 0xf8));
    frame->setZValue(-2);
    auto* label = m_scene->addSimpleText(cluster.label, clusterFont);
    label->setBrush(QColor(0x55, 0x5a, 0x70));
    label->setPos(cluster.rect.topLeft() + QPointF(6, 3));
    label->setZValue(-1);
  }

  const QPen edgePen(QColor(0x60, 0x60, 0x60), 1.1);
  for (const LayoutEdge& edge : m_layout.edges) {
    if (edge.points.empty()) continue;
    m_scene->addPath(edgePath(edge), edgePen)->setZValue(0);
    if (edge.hasArrow) {
      m_scene->addPolygon(arrowHead(edge.points.back(), edge.arrowTip), Qt::NoPen, QColor(0x60, 0x60, 0x60))
          ->setZValue(0);
    }
  }

  for (const GraphNode& node : m_data.nodes) {
    const QRectF rect = m_layout.nodeRects[static_cast<size_t>(node.id)];
    QPainterPath shape;
    if (node.kind == GraphNodeKind::Input) {
      shape.addEllipse(rect);
    } else {
      shape.addRoundedRect(rect, 6, 6);
    }
    auto* box = m_scene->addPath(shape, QPen(sectionBorderColor(node.section), 1.2),
                                 node.kind == GraphNodeKind::Input ? QColor(Qt::white)
                                                                   : sectionColor(node.section));
    box->setZValue(1);
    box->setData(kNodeIndexKey, node.id);
    QString tip = tr("%1 (%2)").arg(node.name, node.op);
    if (node.section >= 0) tip += QLatin1Char('\n') + tr("section %1, hypersection %2").arg(node.section).arg(node.hypersection);
    if (!node.hyperfunction.isEmpty()) tip += QLatin1Char('\n') + tr("hyperfunction %1").arg(node.hyperfunction);
    if (!node.role.isEmpty()) tip += QLatin1Char('\n') + tr("role %1").arg(node.role);
    box->setToolTip(tip);
    auto* text = new QGraphicsSimpleTextItem(node.label, box);
    text->setFont(font);
    text->setBrush(QColor(0x20, 0x20, 0x20));
    const QRectF tb = text->boundingRect();
    text->setPos(rect.center() - QPointF(tb.width() / 2, tb.height() / 2));
    m_nodeItems[static_cast<size_t>(node.id)] = box;
  }
  m_scene->setSceneRect(m_layout.bounds.adjusted(-20, -20, 20, 20));
  if (m_highlighted >= 0) highlightSection(m_highlighted);
}

void GraphView::highlightSection(int sectionId) {
  m_highlighted = sectionId;
  for (QGraphicsItem* item : m_nodeItems) {
    auto* box = static_cast<QGraphicsPathItem*>(item);
    if (!box) continue;
    const GraphNode& node = m_data.nodes[static_cast<size_t>(box->data(kNodeIndexKey).toInt())];
    const bool on = sectionId >= 0 && node.section == sectionId;
    box->setPen(on ? QPen(QColor(0xd0, 0x20, 0x20), 3.0) : QPen(sectionBorderColor(node.section), 1.2));
    box->setZValue(on ? 2 : 1);
  }
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double factor = std::pow(1.2, steps);
  const double current = transform().m11();
  if ((current > 8 && factor > 1) || (current < 0.02 && factor < 1)) return;
  scale(factor, factor);  // AnchorUnderMouse keeps the point under the cursor fixed
  event->accept();
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  for (QGraphicsItem* item : items(event->pos())) {
    if (item->data(kNodeIndexKey).isValid()) {
      emit nodeActivated(item->data(kNodeIndexKey).toInt());
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

}  // namespace dfc::views
