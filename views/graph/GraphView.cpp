#include "graph/GraphView.h"

#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainterPath>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

#include "graph/GraphLayouter.h"
#include "style/Palette.h"

namespace dfc::views {
namespace {

constexpr int kNodeIndexKey = 0;  // QGraphicsItem::data key holding the GraphData index
constexpr int kClusterKey = 1;    // ... holding a hyperfunction frame's scope
constexpr double kLabelMinZoom = 0.45;  // below this, text is unreadable: hide it

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
  qRegisterMetaType<dfc::views::NodeDetails>();
  connect(m_layouter, &GraphLayouter::layoutReady, this, &GraphView::onLayoutReady);
  showMessage(tr("Open a PEF to see its operator graph"));
}

GraphView::~GraphView() = default;

void GraphView::setGraph(GraphData data) {
  m_data = std::move(data);
  if (m_baseOverlay) m_overlay = std::make_shared<const GraphOverlay>(m_baseOverlay->fittedTo(m_data));
  m_hasLayout = false;
  m_pending = true;
  showMessage(tr("Layout in progress (%n node(s))…", nullptr, static_cast<int>(m_data.nodes.size())));
  m_matches.clear();
  m_layouter->requestLayout(m_data);
  emit legendChanged();
}

void GraphView::setModel(std::shared_ptr<const ir::Graph> graph, std::shared_ptr<const partition::Plan> plan,
                         GraphDataOptions options) {
  m_irGraph = std::move(graph);
  m_plan = std::move(plan);
  m_options = std::move(options);
  m_hasLayout = false;
  m_userMoved = false;
  m_autoFolded = false;
  if (m_ownIdentity && m_plan) m_identity = std::make_shared<const ColorIdentity>(ColorIdentity::fromPlan(*m_plan, m_irGraph.get()));
  rebuildFromModel();
}

void GraphView::setColorIdentity(SharedColorIdentity identity) {
  m_ownIdentity = !identity;
  m_identity = identity ? std::move(identity)
               : m_plan ? std::make_shared<const ColorIdentity>(ColorIdentity::fromPlan(*m_plan, m_irGraph.get()))
                        : nullptr;
  applyNodeStyles();
  emit legendChanged();
}

const ColorIdentity& GraphView::colorIdentity() const {
  static const ColorIdentity kEmpty;
  return m_identity ? *m_identity : kEmpty;
}

void GraphView::rebuildFromModel() {
  if (!m_irGraph || !m_plan) return;
  const bool keepView = m_hasLayout;
  setGraph(buildGraphData(*m_irGraph, *m_plan, m_options));
  m_options.collapsedScopes = m_data.collapsedScopes;  // from now on the user decides
  m_hasLayout = keepView;  // keep zoom: onLayoutReady fits only the first layout
}

void GraphView::collapse(const QString& scope) {
  if (!m_irGraph || scope.isEmpty() || isCollapsed(scope) || !m_data.scopes.count(scope)) return;
  auto scopes = m_data.collapsedScopes;
  scopes.insert(scope);
  m_options.collapsedScopes = scopes;
  m_focusScope.clear();
  rebuildFromModel();
}

void GraphView::expand(const QString& scope) {
  if (!m_irGraph || !isCollapsed(scope)) return;
  auto scopes = m_data.collapsedScopes;
  scopes.erase(scope);
  m_options.collapsedScopes = scopes;
  m_focusScope = scope;
  rebuildFromModel();
}

void GraphView::toggleCollapsed(const QString& scope) {
  if (isCollapsed(scope)) expand(scope);
  else collapse(scope);
}

void GraphView::setOverlay(std::shared_ptr<const GraphOverlay> overlay) {
  m_baseOverlay = std::move(overlay);
  m_overlay = m_baseOverlay ? std::make_shared<const GraphOverlay>(m_baseOverlay->fittedTo(m_data)) : nullptr;
  if (!overlayMetric(m_colorMode)) return;
  applyNodeStyles();
  emit legendChanged();
}

void GraphView::setColorMode(GraphColorMode mode) {
  if (mode == m_colorMode) return;
  m_colorMode = mode;
  applyNodeStyles();
  emit legendChanged();
}

NodeDetails GraphView::nodeDetails(int index) const {
  return describeNode(m_data, index, m_irGraph.get(), m_plan.get());
}

void GraphView::selectNode(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_data.nodes.size()) return;
  emit nodeSelected(nodeDetails(index));
}

QList<int> GraphView::findNodes(const QString& text) {
  m_matches.clear();
  const QString needle = text.trimmed();
  if (!needle.isEmpty()) {
    // "conv" should find conv ops, not every op under a "conv1/" scope: the
    // scope path is searched only when the text names one ("conv1/").
    const bool path = needle.contains(QLatin1Char('/'));
    auto hitName = [&](const QString& name) {
      return (path ? name : name.section(QLatin1Char('/'), -1)).contains(needle, Qt::CaseInsensitive);
    };
    auto hit = [&](const QString& s) { return s.contains(needle, Qt::CaseInsensitive); };
    for (const GraphNode& node : m_data.nodes) {
      bool match = hitName(node.name) || hit(node.op) ||
                   (node.kind == GraphNodeKind::Collapsed && hit(node.name));
      if (!match && m_irGraph && node.kind == GraphNodeKind::Collapsed) {
        for (ir::NodeId id : node.members) {
          const ir::Node& op = m_irGraph->nodes[static_cast<size_t>(id)];
          const std::string_view opName = ir::opName(op.op);
          if (hitName(QString::fromStdString(op.name)) ||
              hit(QString::fromUtf8(opName.data(), static_cast<qsizetype>(opName.size())))) {
            match = true;
            break;
          }
        }
      }
      if (match) m_matches.append(node.id);
    }
  }
  applyNodeStyles();
  if (!m_matches.isEmpty() && m_hasLayout && static_cast<size_t>(m_matches.first()) < m_layout.nodeRects.size())
    centerOn(m_layout.nodeRects[static_cast<size_t>(m_matches.first())].center());
  return m_matches;
}

void GraphView::clear() {
  m_irGraph.reset();
  m_plan.reset();
  m_data = {};
  m_layout = {};
  m_hasLayout = false;
  m_pending = false;
  showMessage(tr("No graph"));
}

void GraphView::showMessage(const QString& text) {
  m_scene->clear();
  m_nodeItems.clear();
  m_labelItems.clear();
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
  const double keepZoom = zoom();
  m_layout = layout;
  m_hasLayout = true;
  buildScene();
  if (first) {
    m_initialViewPending = true;
    if (canShowInitialView() && showInitialView()) return;  // folding for readability: another layout comes
  } else {
    setZoom(keepZoom);
  }
  if (!m_focusScope.isEmpty()) {
    for (const LayoutCluster& cluster : m_layout.clusters)
      if (cluster.label == m_focusScope || cluster.label.startsWith(m_focusScope + QLatin1Char('/'))) {
        centerOn(cluster.rect.center());
        break;
      }
    m_focusScope.clear();
  }
  updateLabelVisibility();
  emit layoutShown();
}

void GraphView::buildScene() {
  m_scene->clear();
  m_nodeItems.assign(m_data.nodes.size(), nullptr);
  m_labelItems.clear();
  QFont font;
  font.setPixelSize(static_cast<int>(kLabelPx));
  QFont clusterFont = font;
  clusterFont.setBold(true);

  for (const LayoutCluster& cluster : m_layout.clusters) {
    auto* frame = m_scene->addRect(cluster.rect, QPen(QColor(0xb0, 0xb0, 0xc0), 1, Qt::DashLine),
                                   QColor(0xf0, 0xf2, 0xf8));
    frame->setZValue(-2);
    frame->setData(kClusterKey, cluster.label);
    frame->setToolTip(tr("%1: double-click to fold into one node").arg(cluster.label));
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
    auto* box = m_scene->addPath(shape, QPen(QColor(0x70, 0x70, 0x78), 1.2), Qt::NoBrush);
    box->setZValue(1);
    box->setData(kNodeIndexKey, node.id);
    QString tip = tr("%1 (%2)").arg(node.name, node.op);
    if (node.kind == GraphNodeKind::Collapsed) {
      tip += QLatin1Char('\n') + tr("%n section(s), %1 hypersection(s)", nullptr, static_cast<int>(node.sections.size()))
                                    .arg(node.hypersectionOps.size());
    } else if (node.section >= 0) {
      tip += QLatin1Char('\n') + tr("section %1, hypersection %2").arg(node.section).arg(node.hypersectionName);
    }
    if (!node.hyperfunction.isEmpty()) tip += QLatin1Char('\n') + tr("hyperfunction %1").arg(node.hyperfunction);
    QStringList roles;
    for (const auto& [role, ops] : node.roleOps) roles << role;
    if (!roles.isEmpty()) tip += QLatin1Char('\n') + tr("role %1").arg(roles.join(QStringLiteral(", ")));
    if (node.kind == GraphNodeKind::Collapsed) tip += QLatin1Char('\n') + tr("double-click to unfold");
    box->setToolTip(tip);
    auto* text = new QGraphicsSimpleTextItem(node.label, box);
    text->setFont(font);
    const QRectF tb = text->boundingRect();
    text->setPos(rect.center() - QPointF(tb.width() / 2, tb.height() / 2));
    m_nodeItems[static_cast<size_t>(node.id)] = box;
    m_labelItems.push_back(text);
  }
  m_scene->setSceneRect(m_layout.bounds.adjusted(-20, -20, 20, 20));
  applyNodeStyles();
}

// Fill by colour mode; border: search match > highlighted section > plain.
void GraphView::applyNodeStyles() {
  const ColorIdentity& identity = colorIdentity();
  for (QGraphicsItem* item : m_nodeItems) {
    auto* box = static_cast<QGraphicsPathItem*>(item);
    if (!box) continue;
    const int index = box->data(kNodeIndexKey).toInt();
    const GraphNode& node = m_data.nodes[static_cast<size_t>(index)];
    const QRectF rect = box->path().boundingRect();
    const QColor fill = nodeColor(node, m_colorMode, identity, m_overlay.get());
    box->setBrush(nodeBrush(node, m_colorMode, identity, rect, m_overlay.get()));
    for (QGraphicsItem* child : box->childItems())
      static_cast<QGraphicsSimpleTextItem*>(child)->setBrush(textColorOn(fill));
    const bool match = m_matches.contains(index);
    const bool section = m_highlighted >= 0 && holdsSection(node, m_highlighted);
    if (match) {
      box->setPen(QPen(QColor(0xff, 0x8c, 0x00), 4.0));
    } else if (section) {
      box->setPen(QPen(QColor(0xd0, 0x20, 0x20), 3.0));
    } else {
      box->setPen(QPen(fill.darker(160), 1.2));
    }
    box->setZValue(match || section ? 2 : 1);
  }
}

bool GraphView::holdsSection(const GraphNode& node, int sectionId) const {
  return node.section == sectionId || node.sections.count(sectionId) > 0;
}

void GraphView::updateLabelVisibility() {
  const bool visible = zoom() >= kLabelMinZoom;
  if (visible == m_labelsVisible && !m_labelItems.empty() && m_labelItems.front()->isVisible() == visible) return;
  m_labelsVisible = visible;
  for (QGraphicsItem* label : m_labelItems) label->setVisible(visible);
}

void GraphView::setZoom(double factor) {
  factor = std::clamp(factor, 0.01, 8.0);
  const double current = zoom();
  if (current > 0) scale(factor / current, factor / current);
  updateLabelVisibility();
  emit zoomChanged(factor);
}

void GraphView::highlightSection(int sectionId, bool reveal) {
  m_highlighted = sectionId;
  applyNodeStyles();
  if (!reveal || sectionId < 0) return;
  QList<int> nodes;
  for (const GraphNode& node : m_data.nodes)
    if (holdsSection(node, sectionId)) nodes.append(node.id);
  centreOnNodes(nodes);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double factor = std::pow(1.2, steps);
  const double current = transform().m11();
  if ((current > 8 && factor > 1) || (current < 0.02 && factor < 1)) return;
  scale(factor, factor);  // AnchorUnderMouse keeps the point under the cursor fixed
  m_userMoved = true;
  updateLabelVisibility();
  emit zoomChanged(zoom());
  event->accept();
}

int GraphView::nodeAt(QPoint pos) const {
  for (QGraphicsItem* item : items(pos)) {
    for (QGraphicsItem* it = item; it; it = it->parentItem())
      if (it->data(kNodeIndexKey).isValid()) return it->data(kNodeIndexKey).toInt();
  }
  return -1;
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  m_pressPos = event->pos();
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if ((event->pos() - m_pressPos).manhattanLength() > 3) m_userMoved = true;  // a pan
  // A click (not a drag) on a node shows its details.
  if (event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() <= 3) {
    const int index = nodeAt(event->pos());
    if (index >= 0 && (event->modifiers() & Qt::ControlModifier)) toggleHighlighted(index);
    else if (index >= 0) selectNode(index);
  }
}

void GraphView::toggleHighlighted(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_data.nodes.size()) return;
  if (!m_matches.removeOne(index)) m_matches.append(index);
  applyNodeStyles();
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  const int index = nodeAt(event->pos());
  if (index >= 0) {
    const GraphNode& node = m_data.nodes[static_cast<size_t>(index)];
    if (node.kind == GraphNodeKind::Collapsed && m_irGraph) {
      expand(node.hyperfunction);
    } else {
      emit nodeActivated(index);
    }
    return;
  }
  for (QGraphicsItem* item : items(event->pos())) {
    if (item->data(kClusterKey).isValid()) {
      // Fold the outermost hyperfunction of the frame ("h.3/attn" folds "h.3").
      const QString scope = item->data(kClusterKey).toString();
      collapse(scope.section(QLatin1Char('/'), 0, 0));
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

}  // namespace dfc::views
