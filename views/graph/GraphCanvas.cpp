#include "graph/GraphCanvas.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace dfc::views {
namespace {

const QColor kFrameFill(0xf0, 0xf2, 0xf8);
const QColor kFramePen(0xb0, 0xb0, 0xc0);
const QColor kFrameTitle(0x55, 0x5a, 0x70);
const QColor kEdge(0x60, 0x60, 0x60);
const QColor kDecisionBadge(0xe8, 0x59, 0x0c);

QPainterPath edgePath(const std::vector<QPointF>& points) {
  QPainterPath path;
  if (points.empty()) return path;
  path.moveTo(points[0]);
  size_t i = 1;
  for (; i + 2 < points.size(); i += 3) path.cubicTo(points[i], points[i + 1], points[i + 2]);
  for (; i < points.size(); ++i) path.lineTo(points[i]);
  return path;
}

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
  const QPointF ab = b - a;
  const double lengthSquared = QPointF::dotProduct(ab, ab);
  const double t = lengthSquared > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / lengthSquared, 0.0, 1.0) : 0.0;
  const QPointF nearest = a + t * ab;
  return std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
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

QRectF boxOf(const std::vector<QPointF>& points) {
  if (points.empty()) return {};
  double left = points[0].x(), right = left, top = points[0].y(), bottom = top;
  for (const QPointF& p : points) {
    left = std::min(left, p.x());
    right = std::max(right, p.x());
    top = std::min(top, p.y());
    bottom = std::max(bottom, p.y());
  }
  return QRectF(QPointF(left, top), QPointF(right, bottom)).adjusted(-2, -2, 2, 2);  // a straight edge has no width
}

QFont labelFont(bool bold) {
  QFont font;
  font.setPixelSize(10);
  font.setBold(bold);
  return font;
}

}  // namespace

GraphCanvas::GraphCanvas() { setFlag(QGraphicsItem::ItemUsesExtendedStyleOption); }

QRectF GraphCanvas::boundingRect() const { return m_layout ? m_layout->bounds.adjusted(-4, -4, 4, 4) : QRectF(); }

void GraphCanvas::setGraph(std::shared_ptr<const GraphData> data, std::shared_ptr<const GraphLayout> layout) {
  prepareGeometryChange();
  m_data = std::move(data);
  m_layout = std::move(layout);
  m_styles.clear();
  m_clusterColors.clear();
  m_lastSummary.assign(m_layout ? m_layout->clusters.size() : 0, 0);
  if (!m_layout) return;
  indexContents();
}

void GraphCanvas::indexContents() {
  const QRectF scene = boundingRect();
  const size_t frames = m_layout->clusters.size();
  m_frameNodes.assign(frames, {});
  m_frameBundles.assign(frames, {});
  m_topNodeIds.clear();
  m_topBundleIds.clear();
  std::vector<QRectF> top;
  for (size_t n = 0; n < m_layout->nodeRects.size(); ++n) {
    const int frame = m_layout->nodeCluster[n];
    if (frame >= 0)
      m_frameNodes[static_cast<size_t>(frame)].push_back(static_cast<int>(n));
    else
      m_topNodeIds.push_back(static_cast<int>(n)), top.push_back(m_layout->nodeRects[n]);
  }
  m_topNodes.build(std::move(top), scene);
  top.clear();
  for (size_t b = 0; b < m_layout->bundles.size(); ++b) {
    const int frame = m_layout->bundles[b].cluster;
    if (frame >= 0)
      m_frameBundles[static_cast<size_t>(frame)].push_back(static_cast<int>(b));
    else
      m_topBundleIds.push_back(static_cast<int>(b)), top.push_back(boxOf(m_layout->bundles[b].points));
  }
  m_topBundles.build(std::move(top), scene);
  std::vector<QRectF> boxes;
  boxes.reserve(m_layout->edges.size());
  for (const LayoutEdge& e : m_layout->edges) boxes.push_back(boxOf(e.points) | QRectF(e.arrowTip, QSizeF(1, 1)));
  m_edges.build(std::move(boxes), scene);
  boxes.clear();
  for (const LayoutCluster& c : m_layout->clusters) boxes.push_back(c.rect);
  m_clusters.build(std::move(boxes), scene);
}

std::vector<int> GraphCanvas::openFrames(const QRectF& area, const std::vector<char>& summary) const {
  std::vector<int> out;
  for (int c : m_clusters.query(area))
    if (!summary[static_cast<size_t>(c)]) out.push_back(c);
  return out;
}

std::vector<int> GraphCanvas::nodesIn(const QRectF& area, const std::vector<int>& frames) const {
  std::vector<int> out;
  for (int i : m_topNodes.query(area)) out.push_back(m_topNodeIds[static_cast<size_t>(i)]);
  for (int c : frames)
    for (int n : m_frameNodes[static_cast<size_t>(c)])
      if (m_layout->nodeRects[static_cast<size_t>(n)].intersects(area)) out.push_back(n);
  return out;
}

std::vector<int> GraphCanvas::bundlesIn(const QRectF& area, const std::vector<int>& frames) const {
  std::vector<int> out;
  for (int i : m_topBundles.query(area)) out.push_back(m_topBundleIds[static_cast<size_t>(i)]);
  for (int c : frames)
    for (int b : m_frameBundles[static_cast<size_t>(c)]) out.push_back(b);  // a few per frame: no test
  return out;
}

void GraphCanvas::setStyles(std::vector<NodeStyle> styles) {
  m_styles = std::move(styles);
  // Each frame's commonest node colour, for when it is drawn as one box.
  const size_t clusters = m_layout ? m_layout->clusters.size() : 0;
  std::vector<std::unordered_map<QRgb, int>> counts(clusters);
  for (size_t n = 0; m_layout && n < m_styles.size() && n < m_layout->nodeCluster.size(); ++n)
    for (int c = m_layout->nodeCluster[n]; c >= 0; c = m_layout->clusters[static_cast<size_t>(c)].parent)
      ++counts[static_cast<size_t>(c)][m_styles[n].base.rgb()];
  m_clusterColors.assign(clusters, kFrameFill);
  for (size_t c = 0; c < clusters; ++c) {
    int best = 0;
    for (const auto& [rgb, count] : counts[c])
      if (count > best) best = count, m_clusterColors[c] = QColor::fromRgb(rgb);
  }
  update();
}

// Per frame: drawn as one box at this scale (itself too small, or inside one that is).
std::vector<char> GraphCanvas::summarized(double scale) const {
  const auto& clusters = m_layout->clusters;
  std::vector<char> out(clusters.size(), 0);
  if (m_fullDetail) return out;
  for (size_t c = 0; c < clusters.size(); ++c) {  // parents come first
    const QRectF& r = clusters[c].rect;
    const int parent = clusters[c].parent;
    out[c] = (parent >= 0 && out[static_cast<size_t>(parent)]) || std::min(r.width(), r.height()) * scale < kSummaryPx;
  }
  return out;
}

void GraphCanvas::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  m_stats = {};
  if (!m_layout || !m_data || m_styles.size() != m_data->nodes.size()) return;
  const double scale = QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
  const QRectF area = option->exposedRect.isEmpty() ? boundingRect() : option->exposedRect;
  const bool labels = m_fullDetail || scale >= kLabelZoom;
  const bool detailed = m_fullDetail || scale >= kDetailZoom;
  m_lastSummary = summarized(scale);
  painter->setRenderHint(QPainter::Antialiasing, detailed);
  paintFrames(painter, area, m_lastSummary, labels);
  paintEdges(painter, area, m_lastSummary, detailed, labels);
  paintSummaries(painter, area, m_lastSummary, scale);
  paintNodes(painter, area, m_lastSummary, detailed, labels);
}

void GraphCanvas::paintFrames(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool labels) {
  p->setPen(QPen(kFramePen, 0, Qt::DashLine));  // cosmetic: dashed per pixel on screen, clipped first
  p->setBrush(kFrameFill);
  const QFont title = labelFont(true);
  for (int c : m_clusters.query(area)) {
    if (summary[static_cast<size_t>(c)]) continue;
    const LayoutCluster& cluster = m_layout->clusters[static_cast<size_t>(c)];
    p->drawRect(cluster.rect);
    ++m_stats.frames;
    if (!labels) continue;
    p->save();
    p->setFont(title);
    p->setPen(kFrameTitle);
    const QRectF line(cluster.rect.topLeft() + QPointF(6, 2), QSizeF(cluster.rect.width() - 8, 14));
    p->drawText(line, Qt::AlignLeft | Qt::AlignVCenter, cluster.label.section(QLatin1Char('/'), -1));
    p->restore();
  }
}

void GraphCanvas::paintEdges(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool detailed,
                             bool arrows) {
  std::vector<char> bundle(m_layout->bundles.size(), 0);
  p->setBrush(Qt::NoBrush);
  p->setPen(QPen(kEdge, 1.1));
  if (detailed) {
    for (int i : m_edges.query(area)) {
      const LayoutEdge& e = m_layout->edges[static_cast<size_t>(i)];
      if (hidden(m_layout->nodeCluster[static_cast<size_t>(e.from)], summary) ||
          hidden(m_layout->nodeCluster[static_cast<size_t>(e.to)], summary)) {
        if (e.bundle >= 0) bundle[static_cast<size_t>(e.bundle)] = 1;  // its ends are in a box: draw the bundle
        continue;
      }
      // A curve far longer than the screen (between distant parts of a long
      // stack) is flattened whole before clipping: draw it as its control
      // polygon, a cosmetic line the rasterizer clips first.
      const QRectF& box = m_edges.rect(i);
      if (box.height() > 4 * area.height() || box.width() > 4 * area.width()) {
        p->save();
        p->setPen(QPen(kEdge, 0));
        p->drawPolyline(e.points.data(), static_cast<int>(e.points.size()));
        p->restore();
      } else {
        p->drawPath(edgePath(e.points));
      }
      ++m_stats.edges;
      if (arrows && e.hasArrow && !e.points.empty()) {
        p->save();
        p->setPen(Qt::NoPen);
        p->setBrush(kEdge);
        p->drawPolygon(arrowHead(e.points.back(), e.arrowTip));
        p->restore();
      }
    }
  } else {
    for (int i : bundlesIn(area, openFrames(area, summary))) bundle[static_cast<size_t>(i)] = 1;
  }
  p->setPen(QPen(kEdge, 0));  // cosmetic: one pixel at any zoom
  for (size_t i = 0; i < bundle.size(); ++i) {
    const LayoutBundle& b = m_layout->bundles[i];
    if (!bundle[i] || hidden(b.cluster, summary) || b.points.empty()) continue;
    const QRectF box = boxOf(b.points);
    if (box.height() > 4 * area.height() || box.width() > 4 * area.width())
      p->drawPolyline(b.points.data(), static_cast<int>(b.points.size()));  // see paintEdges
    else
      p->drawPath(edgePath(b.points));
    ++m_stats.bundles;
  }
}

void GraphCanvas::paintSummaries(QPainter* p, const QRectF& area, const std::vector<char>& summary, double scale) {
  // A tall stack fitted whole leaves a layer narrower than a pixel: widen the
  // box around its centre so the stack's colours still show.
  const double minWidth = kMinSummaryPx / std::max(scale, 1e-9);
  for (int c : m_clusters.query(area)) {
    const LayoutCluster& cluster = m_layout->clusters[static_cast<size_t>(c)];
    if (!summary[static_cast<size_t>(c)] || hidden(cluster.parent, summary)) continue;
    const QColor fill = m_clusterColors.empty() ? kFrameFill : m_clusterColors[static_cast<size_t>(c)];
    p->setPen(QPen(fill.darker(150), 0));
    p->setBrush(fill);
    QRectF box = cluster.rect;
    if (box.width() < minWidth) box.adjust((box.width() - minWidth) / 2, 0, (minWidth - box.width()) / 2, 0);
    p->drawRect(box);
    ++m_stats.summaries;
  }
}

void GraphCanvas::paintNodes(QPainter* p, const QRectF& area, const std::vector<char>& summary, bool detailed,
                             bool labels) {
  std::vector<int> shown, raised;
  for (int i : nodesIn(area, openFrames(area, summary)))
    (m_styles[static_cast<size_t>(i)].raised ? raised : shown).push_back(i);
  shown.insert(shown.end(), raised.begin(), raised.end());
  const QFont font = labelFont(false);
  p->setFont(font);
  for (int i : shown) {
    const GraphNode& node = m_data->nodes[static_cast<size_t>(i)];
    const NodeStyle& style = m_styles[static_cast<size_t>(i)];
    const QRectF& r = m_layout->nodeRects[static_cast<size_t>(i)];
    ++m_stats.nodes;
    if (!detailed && !style.raised) {
      p->fillRect(r, style.base);
      continue;
    }
    p->setPen(QPen(style.pen, style.penWidth, style.dashed ? Qt::DashLine : Qt::SolidLine));
    if (style.stripes.style() != Qt::NoBrush)
      p->setBrush(style.stripes);
    else
      p->setBrush(style.fill);
    if (node.kind == GraphNodeKind::Input)
      p->drawEllipse(r);
    else if (node.kind == GraphNodeKind::Stub)
      p->drawRoundedRect(r, 4, 4);
    else
      p->drawRoundedRect(r, 6, 6);
    if (style.marked) paintDecisionBadge(p, r);
    if (!labels) continue;
    p->setPen(style.text);
    p->drawText(r, Qt::AlignCenter, node.label);
    ++m_stats.labels;
  }
}

// A pending decision: an orange disc with a white rim on the node's top right corner.
void GraphCanvas::paintDecisionBadge(QPainter* p, const QRectF& node) {
  const double radius = std::clamp(node.height() * 0.22, 4.0, 8.0);
  p->save();
  p->setPen(QPen(Qt::white, radius * 0.35));
  p->setBrush(kDecisionBadge);
  p->drawEllipse(QPointF(node.right() - radius * 0.6, node.top() + radius * 0.6), radius, radius);
  p->restore();
}

int GraphCanvas::nodeAt(QPointF scenePos) const {
  if (!m_layout) return -1;
  const QRectF probe(scenePos - QPointF(0.5, 0.5), QSizeF(1, 1));
  for (int i : nodesIn(probe, openFrames(probe, m_lastSummary)))
    if (m_layout->nodeRects[static_cast<size_t>(i)].contains(scenePos)) return i;
  return -1;
}

int GraphCanvas::clusterAt(QPointF scenePos) const {
  if (!m_layout) return -1;
  int found = -1;
  for (int c : m_clusters.query(QRectF(scenePos - QPointF(0.5, 0.5), QSizeF(1, 1))))
    if (m_layout->clusters[static_cast<size_t>(c)].rect.contains(scenePos)) found = c;  // children come later
  return found;
}

// Edges whose ends sit in a frame drawn as one box are not on screen: they are skipped.
int GraphCanvas::edgeAt(QPointF scenePos, double tolerance) const {
  if (!m_layout) return -1;
  const QRectF probe(scenePos - QPointF(tolerance, tolerance), QSizeF(2 * tolerance, 2 * tolerance));
  auto shown = [this](int cluster) {
    return cluster < 0 || static_cast<size_t>(cluster) >= m_lastSummary.size() ||
           !m_lastSummary[static_cast<size_t>(cluster)];
  };
  int best = -1;
  double bestDistance = tolerance;
  for (int i : m_edges.query(probe)) {
    const LayoutEdge& e = m_layout->edges[static_cast<size_t>(i)];
    if (!shown(m_layout->nodeCluster[static_cast<size_t>(e.from)]) ||
        !shown(m_layout->nodeCluster[static_cast<size_t>(e.to)]))
      continue;
    for (const QPolygonF& line : edgePath(e.points).toSubpathPolygons()) {
      for (qsizetype k = 1; k < line.size(); ++k) {
        const double d = distanceToSegment(scenePos, line[k - 1], line[k]);
        if (d <= bestDistance) best = i, bestDistance = d;
      }
    }
  }
  return best;
}

}  // namespace dfc::views
