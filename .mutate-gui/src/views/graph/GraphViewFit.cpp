// GraphView's framing: readable on open, fit graph / selection, fold and
// unfold everything in place, legend selection. Kept apart from drawing and input.
#include <QResizeEvent>
#include <QShowEvent>
#include <algorithm>

#include "graph/GraphView.h"
#include "graph/LayoutProgress.h"

namespace dfc::views {
namespace {

constexpr double kMaxFitZoom = 1.5;  // a tiny graph need not fill the screen with giant boxes
constexpr double kFitMargin = 0.97;  // of the pane the fitted graph fills
constexpr int kMinViewport = 80;     // px: smaller is a view not laid out yet

QPointF topCentre(const QRectF& rect) { return {rect.center().x(), rect.top()}; }

}  // namespace

bool GraphView::canShowInitialView() const {
  return isVisible() && viewport()->width() >= kMinViewport && viewport()->height() >= kMinViewport;
}

void GraphView::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  if (m_hasLayout && m_initialViewPending && canShowInitialView()) showInitialView();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);  // the resize anchor keeps the view's centre
  if (m_hasLayout && m_initialViewPending && canShowInitialView())
    showInitialView();
  else if (m_hasLayout && m_fitted && !m_pending)
    fitRect(m_layout->bounds, false);
  if (m_progress->isVisible()) m_progress->showOver(viewport()->geometry());
}

bool GraphView::showInitialView() {
  m_initialViewPending = false;
  const QRectF bounds = m_layout->bounds;
  const double fit = std::min(viewport()->width() / std::max(bounds.width(), 1.0),
                              viewport()->height() / std::max(bounds.height(), 1.0));
  const double readable = kReadableLabelPx / kLabelPx;
  // The whole graph would be unreadable: fold its hyperfunctions once, and
  // the folded layout comes back here as a first layout.
  if (fit < readable && !m_autoFolded && !m_data->collapsed && m_irGraph && !topLevelScopes(*m_irGraph).empty()) {
    m_autoFolded = true;
    m_openingModel = true;
    m_options.collapsedScopes = topLevelScopes(*m_irGraph);
    rebuildFromModel();
    emit autoFolded();
    return true;
  }
  fitRect(bounds, true);
  m_fitted = fit * kFitMargin >= readable;  // the whole graph is on screen: a resize fits it again
  return false;
}

void GraphView::fitRect(const QRectF& rect, bool readable) {
  if (rect.isEmpty()) return;
  const double fit =
      std::min(viewport()->width() / std::max(rect.width(), 1.0), viewport()->height() / std::max(rect.height(), 1.0)) *
      kFitMargin;
  double factor = std::min(fit, kMaxFitZoom);
  if (readable) factor = std::max(factor, kReadableLabelPx / kLabelPx);
  applyZoom(factor);
  if (factor <= fit) {
    centerOn(rect.center());
  } else {
    // Too big to show readably: its top (the inputs), centred across.
    const double halfHeight = viewport()->height() / factor / 2;
    centerOn(QPointF(rect.center().x(), rect.top() + halfHeight - 10));
  }
}

void GraphView::fitGraph() {
  if (!m_hasLayout) return;
  fitRect(m_layout->bounds, false);
  m_fitted = true;
}

void GraphView::fitSelection() {
  QList<int> nodes = m_matches;
  if (nodes.isEmpty() && m_highlighted >= 0)
    for (const GraphNode& node : m_data->nodes)
      if (holdsSection(node, m_highlighted)) nodes.append(node.id);
  if (nodes.isEmpty() || !showsGraph()) return fitGraph();
  QRectF box;
  for (int i : nodes) box |= m_layout->nodeRects[static_cast<size_t>(i)];
  userMoved();
  fitRect(box.adjusted(-10, -10, 10, 10), false);
}

void GraphView::centreOnNodes(const QList<int>& nodes) {
  if (!m_hasLayout || nodes.isEmpty() || !showsGraph()) return;
  QRectF box;
  for (int i : nodes) box |= m_layout->nodeRects[static_cast<size_t>(i)];
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  if (visible.contains(box)) return;
  userMoved();
  if (box.width() * zoom() <= viewport()->width() && box.height() * zoom() <= viewport()->height()) {
    centerOn(box.center());
  } else {
    centerOn(m_layout->nodeRects[static_cast<size_t>(nodes.first())].center());
  }
}

QRect GraphView::visibleGraphRect() const {
  if (!m_hasLayout) return {};
  return mapFromScene(m_layout->bounds).boundingRect().intersected(viewport()->rect());
}

int GraphView::operatorsOnScreen() const {
  if (!m_hasLayout) return 0;
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  int count = 0;
  for (const GraphNode& node : m_canvas->data()->nodes)
    count += node.kind == GraphNodeKind::Op && visible.contains(m_layout->nodeRects[static_cast<size_t>(node.id)]);
  return count;
}

void GraphView::collapseAll() {
  if (!m_irGraph) return;
  std::set<QString> scopes;
  for (const QString& scope : m_data->scopes)
    if (!scope.contains(QLatin1Char('/'))) scopes.insert(scope);
  if (scopes.empty() || scopes == requestedFold()) return;
  m_anchor = anchorAtCentre();
  m_options.collapsedScopes = scopes;
  m_fitted = false;
  rebuildFromModel();
}

void GraphView::expandAll() {
  if (!m_irGraph || requestedFold().empty()) return;
  m_anchor = anchorAtCentre();
  m_options.collapsedScopes = std::set<QString>{};
  m_fitted = false;
  rebuildFromModel();
}

QList<int> GraphView::selectKey(const QString& key) {
  m_matches.clear();
  for (const GraphNode& node : m_data->nodes)
    if (nodeHasKey(node, m_colorMode, key, m_overlay.get())) m_matches.append(node.id);
  applyNodeStyles();
  centreOnNodes(m_matches);
  return m_matches;
}

QList<int> GraphView::selectSections(const std::set<int>& sections) {
  m_matches.clear();
  for (const GraphNode& node : m_data->nodes) {
    const bool holds = sections.count(node.section) > 0 ||
                       std::any_of(node.sections.begin(), node.sections.end(), [&](int s) { return sections.count(s) > 0; });
    if (holds && node.kind != GraphNodeKind::Stub) m_matches.append(node.id);
  }
  applyNodeStyles();
  centreOnNodes(m_matches);
  return m_matches;
}

QList<int> GraphView::selectHypersection(const QString& name) {
  m_matches.clear();
  for (const GraphNode& node : m_data->nodes)
    if (node.hypersectionName == name || node.hypersectionOps.count(name)) m_matches.append(node.id);
  applyNodeStyles();
  centreOnNodes(m_matches);
  return m_matches;
}

// Far past the graph on every side: centerOn never stops at an edge.
void GraphView::updateSceneRect() {
  const QRectF b = m_layout->bounds;
  const double margin = std::max({2 * b.width(), 2 * b.height(), 50000.0});
  m_scene->setSceneRect(b.adjusted(-margin, -margin, margin, margin));
}

void GraphView::userMoved() {
  m_fitted = false;
  m_initialViewPending = false;
}

GraphView::Anchor GraphView::anchorOn(const QString& scope) const {
  const GraphData* shown = m_canvas->data();
  if (!shown || scope.isEmpty()) return {};
  for (const LayoutCluster& cluster : m_layout->clusters)
    if (cluster.label == scope) return {scope, QPointF(mapFromScene(topCentre(cluster.rect))), true};
  for (const GraphNode& node : shown->nodes)
    if (node.kind == GraphNodeKind::Collapsed && node.hyperfunction == scope)
      return {scope, QPointF(mapFromScene(topCentre(m_layout->nodeRects[static_cast<size_t>(node.id)]))), true};
  return {};
}

// Unfold / fold all keep the top-level hyperfunction nearest the centre in place.
GraphView::Anchor GraphView::anchorAtCentre() const {
  const GraphData* shown = m_canvas->data();
  if (!shown) return {};
  const QPointF centre = mapToScene(viewport()->rect().center());
  auto distance = [&centre](const QRectF& r) {
    const double dx = std::max({r.left() - centre.x(), 0.0, centre.x() - r.right()});
    const double dy = std::max({r.top() - centre.y(), 0.0, centre.y() - r.bottom()});
    return dx * dx + dy * dy;
  };
  QString best;
  double nearest = 0;
  auto consider = [&](const QString& scope, const QRectF& rect) {
    const double d = distance(rect);
    if (best.isEmpty() || d < nearest) best = scope, nearest = d;
  };
  for (const LayoutCluster& cluster : m_layout->clusters)
    if (cluster.parent < 0) consider(cluster.label, cluster.rect);
  for (const GraphNode& node : shown->nodes)
    if (node.kind == GraphNodeKind::Collapsed && !node.hyperfunction.contains(QLatin1Char('/')))
      consider(node.hyperfunction, m_layout->nodeRects[static_cast<size_t>(node.id)]);
  return anchorOn(best);
}

void GraphView::restoreAnchor() {
  const Anchor anchor = m_anchor;
  m_anchor = {};
  if (!anchor.valid) return;
  const Anchor now = anchorOn(anchor.scope);
  if (!now.valid) return;
  // Scroll by the anchor's move on screen, in scene units.
  const QPointF centre = mapToScene(viewport()->rect().center());
  centerOn(centre + (now.viewPos - anchor.viewPos) / zoom());
}

}  // namespace dfc::views
