// GraphView's framing: readable on open, fit graph / selection, fold and
// unfold everything, legend selection. Kept apart from drawing and input.
#include <QResizeEvent>
#include <QShowEvent>
#include <algorithm>

#include "graph/GraphView.h"

namespace dfc::views {
namespace {

constexpr double kMaxFitZoom = 1.5;  // a tiny graph need not fill the screen with giant boxes
constexpr int kMinViewport = 80;     // px: smaller is a view not laid out yet

}  // namespace

bool GraphView::canShowInitialView() const {
  return isVisible() && viewport()->width() >= kMinViewport && viewport()->height() >= kMinViewport;
}

void GraphView::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  if (m_hasLayout && m_initialViewPending && !m_userMoved && canShowInitialView()) showInitialView();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (m_hasLayout && m_initialViewPending && !m_userMoved && canShowInitialView()) showInitialView();
}

bool GraphView::showInitialView() {
  const QRectF bounds = m_layout.bounds;
  const double fit = std::min(viewport()->width() / std::max(bounds.width(), 1.0),
                              viewport()->height() / std::max(bounds.height(), 1.0));
  const double readable = kReadableLabelPx / kLabelPx;
  // The whole graph would be unreadable: fold its hyperfunctions once, and
  // the folded layout comes back here as a first layout.
  if (fit < readable && !m_autoFolded && !m_data.collapsed && m_irGraph && !topLevelScopes(*m_irGraph).empty()) {
    m_autoFolded = true;
    collapseAll();
    m_hasLayout = false;
    emit autoFolded();
    return true;
  }
  fitRect(bounds, true);
  return false;
}

void GraphView::fitRect(const QRectF& rect, bool readable) {
  if (rect.isEmpty()) return;
  const double fit = std::min(viewport()->width() / std::max(rect.width(), 1.0),
                              viewport()->height() / std::max(rect.height(), 1.0)) * 0.97;
  double factor = std::min(fit, kMaxFitZoom);
  if (readable) factor = std::max(factor, kReadableLabelPx / kLabelPx);
  const bool keepMoved = m_userMoved;
  setZoom(factor);
  m_userMoved = keepMoved;
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
  m_userMoved = false;
  fitRect(m_layout.bounds, false);
}

void GraphView::fitSelection() {
  QList<int> nodes = m_matches;
  if (nodes.isEmpty() && m_highlighted >= 0)
    for (const GraphNode& node : m_data.nodes)
      if (holdsSection(node, m_highlighted)) nodes.append(node.id);
  if (nodes.isEmpty()) return fitGraph();
  QRectF box;
  for (int i : nodes)
    if (static_cast<size_t>(i) < m_layout.nodeRects.size()) box |= m_layout.nodeRects[static_cast<size_t>(i)];
  m_userMoved = true;
  fitRect(box.adjusted(-30, -30, 30, 30), true);
}

void GraphView::centreOnNodes(const QList<int>& nodes) {
  if (!m_hasLayout || nodes.isEmpty()) return;
  QRectF box;
  for (int i : nodes)
    if (static_cast<size_t>(i) < m_layout.nodeRects.size()) box |= m_layout.nodeRects[static_cast<size_t>(i)];
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  if (visible.contains(box)) return;
  if (box.width() * zoom() <= viewport()->width() && box.height() * zoom() <= viewport()->height()) {
    centerOn(box.center());
  } else {
    centerOn(m_layout.nodeRects[static_cast<size_t>(nodes.first())].center());
  }
}

QRect GraphView::visibleGraphRect() const {
  if (!m_hasLayout) return {};
  return mapFromScene(m_layout.bounds).boundingRect().intersected(viewport()->rect());
}

void GraphView::collapseAll() {
  if (!m_irGraph) return;
  std::set<QString> scopes;
  for (const QString& scope : m_data.scopes)
    if (!scope.contains(QLatin1Char('/'))) scopes.insert(scope);
  if (scopes.empty() || scopes == m_data.collapsedScopes) return;
  m_options.collapsedScopes = scopes;
  m_focusScope.clear();
  rebuildFromModel();
}

void GraphView::expandAll() {
  if (!m_irGraph || m_data.collapsedScopes.empty()) return;
  m_options.collapsedScopes = std::set<QString>{};
  m_focusScope.clear();
  rebuildFromModel();
}

QList<int> GraphView::selectKey(const QString& key) {
  m_matches.clear();
  for (const GraphNode& node : m_data.nodes)
    if (nodeHasKey(node, m_colorMode, key)) m_matches.append(node.id);
  applyNodeStyles();
  centreOnNodes(m_matches);
  return m_matches;
}

QList<int> GraphView::selectHypersection(const QString& name) {
  m_matches.clear();
  for (const GraphNode& node : m_data.nodes)
    if (node.hypersectionName == name || node.hypersectionOps.count(name)) m_matches.append(node.id);
  applyNodeStyles();
  centreOnNodes(m_matches);
  return m_matches;
}

}  // namespace dfc::views
