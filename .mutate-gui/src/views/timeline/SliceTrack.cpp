#include "timeline/SliceTrack.h"

#include <QPainter>
#include <algorithm>

namespace dfc::views {
namespace {

const QColor kFoldColor(0x8a, 0x8f, 0xa0);
const QColor kMatchColor(0xff, 0x8c, 0x00);  // search hits: an orange outline, or a tick on a fold

}  // namespace

void SliceTrack::paint(QPainter& painter, const TrackPaintState& state, int top) const {
  const TimelineViewport& viewport = state.viewport;
  paintFrame(painter, viewport, top);
  painter.setClipRect(viewport.plotRect());
  // The coarsest precomputed level whose merged runs are narrower than a fold.
  const TimelineLod* lod = m_row.lodFor(kFoldPx / viewport.pxPerUs());
  for (size_t lane = 0; lane < m_row.laneSlices.size(); ++lane)
    paintLane(painter, state, lane, top + static_cast<double>(lane) * kLaneHeight, lod);
  paintInstants(painter, viewport, top);
  if (state.selected) {
    painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(itemRect(viewport, *state.selected, top).adjusted(-1, -1, 1, 1));
  }
  painter.setClipping(false);
}

void SliceTrack::paintLane(QPainter& painter, const TrackPaintState& state, size_t lane, double y,
                           const TimelineLod* lod) const {
  const TimelineViewport& viewport = state.viewport;
  const double t0 = viewport.startUs, t1 = viewport.endUs(), scale = viewport.pxPerUs();
  const double left = kLabelWidth, right = viewport.width;
  const QFontMetrics metrics = painter.fontMetrics();
  // One pending fold: consecutive narrow items merge into one block.
  double foldX0 = 0, foldX1 = -1;
  size_t foldCount = 0;
  const auto& slices = m_row.laneSlices[lane];
  auto isMatch = [&](size_t slice) { return (*state.matches)[m_trace.events[m_row.events[slice]].name]; };
  auto flush = [&] {
    if (foldCount == 0) return;
    painter.fillRect(QRectF(foldX0, y, std::max(foldX1 - foldX0, 1.0), kLaneHeight - 2), kFoldColor);
    ++state.stats.blocks;
    foldCount = 0;
  };
  auto visit = [&](double start, double end, size_t sliceCount, size_t slice) {
    ++state.stats.visited;
    const double x0 = std::max(left - 1, left + (start - t0) * scale);
    const double x1 = std::min(right + 1, left + (end - t0) * scale);
    if (x1 - x0 < kFoldPx || sliceCount > 1) {
      if (foldCount > 0 && x0 > foldX1 + 1) flush();
      if (foldCount == 0) foldX0 = x0;
      foldX1 = std::max(foldX1, x1);
      foldCount += sliceCount;
      state.stats.folded += sliceCount;
      return;
    }
    flush();
    const QRectF box(x0, y, x1 - x0, kLaneHeight - 2);
    const QColor fill = QColor::fromRgb(m_row.colors[slice]);
    painter.fillRect(box, state.hovered == slice ? fill.lighter(115) : fill);
    ++state.stats.drawn;
    if (state.matches && isMatch(slice)) {
      painter.setPen(QPen(kMatchColor, 2));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(box.adjusted(1, 1, -1, -1));
      ++state.stats.marked;
    }
    if (box.width() > 24) {
      const std::string_view name = m_trace.string(m_trace.events[m_row.events[slice]].name);
      painter.setPen(QColor(0x10, 0x10, 0x10));
      const QRectF textBox = box.adjusted(3, 0, -3, 0);
      painter.drawText(textBox, Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())),
                                          Qt::ElideRight, static_cast<int>(textBox.width())));
    }
  };
  if (lod) {
    const auto& items = lod->lanes[lane];
    auto it = std::lower_bound(items.begin(), items.end(), t0,
                               [](const TimelineLodItem& item, double t) { return item.end < t; });
    for (; it != items.end() && it->start <= t1; ++it)
      visit(it->start, it->end, it->count, it->count == 1 ? slices[it->first] : 0);
  } else {
    // Lanes never overlap, so ends ascend: binary search on the end.
    auto it = std::lower_bound(slices.begin(), slices.end(), t0,
                               [&](uint32_t i, double t) { return m_row.starts[i] + m_row.durations[i] < t; });
    for (; it != slices.end() && m_row.starts[*it] <= t1; ++it)
      visit(m_row.starts[*it], m_row.starts[*it] + m_row.durations[*it], 1, *it);
  }
  flush();
  if (state.hits && lane < state.hits->size()) paintHitTicks(painter, state, (*state.hits)[lane], y);
}

// Search hits too narrow for a box of their own (folded, or merged into a
// level-of-detail block) get a tick: at most one every 3 px, found by binary
// search, so a million hits cost a few hundred ticks.
void SliceTrack::paintHitTicks(QPainter& painter, const TrackPaintState& state, const std::vector<TimelineHit>& hits,
                               double y) const {
  const TimelineViewport& viewport = state.viewport;
  const double t0 = viewport.startUs, t1 = viewport.endUs(), scale = viewport.pxPerUs();
  auto it = std::lower_bound(hits.begin(), hits.end(), t0, [](const TimelineHit& h, double t) { return h.end < t; });
  while (it != hits.end() && it->start <= t1) {
    if ((it->end - it->start) * scale >= kFoldPx) {  // drawn as a box, outlined there
      ++it;
      continue;
    }
    const double x = std::max<double>(kLabelWidth, viewport.xAt(it->start));
    painter.fillRect(QRectF(x, y, 3, kLaneHeight - 2), kMatchColor);
    ++state.stats.marked;
    const double next = viewport.timeAt(x + 3);
    it = std::lower_bound(it + 1, hits.end(), next, [](const TimelineHit& h, double t) { return h.start < t; });
  }
}

// Instants as short dark ticks with a small head; at most one per pixel.
void SliceTrack::paintInstants(QPainter& painter, const TimelineViewport& viewport, int top) const {
  if (m_row.instants.empty()) return;
  auto it = std::lower_bound(m_row.instants.begin(), m_row.instants.end(), viewport.startUs);
  int lastX = -1;
  painter.setPen(QPen(QColor(0x30, 0x30, 0x50), 1));
  painter.setBrush(QColor(0x30, 0x30, 0x50));
  for (; it != m_row.instants.end() && *it <= viewport.endUs(); ++it) {
    const int x = static_cast<int>(viewport.xAt(*it));
    if (x == lastX) continue;
    lastX = x;
    painter.drawLine(x, top, x, top + kLaneHeight - 2);
    painter.drawPolygon(QPolygon({QPoint(x - 3, top), QPoint(x + 3, top), QPoint(x, top + 4)}));
  }
}

std::optional<size_t> SliceTrack::itemAt(const TimelineViewport& viewport, QPointF pos, int top) const {
  const auto lane = static_cast<size_t>((pos.y() - top) / kLaneHeight);
  if (pos.y() < top || lane >= m_row.laneSlices.size()) return std::nullopt;
  const auto& slices = m_row.laneSlices[lane];
  const double t = viewport.timeAt(pos.x());
  const double tolerance = 2.0 / viewport.pxPerUs();
  // Slices of one lane never overlap: their ends ascend, so binary search on the end.
  auto it = std::lower_bound(slices.begin(), slices.end(), t - tolerance,
                             [&](uint32_t i, double v) { return m_row.starts[i] + m_row.durations[i] < v; });
  std::optional<size_t> best;
  double bestDistance = tolerance;
  for (; it != slices.end() && m_row.starts[*it] <= t + tolerance; ++it) {
    const double start = m_row.starts[*it];
    const double end = start + m_row.durations[*it];
    const double distance = t < start ? start - t : (t > end ? t - end : 0.0);
    if (distance <= bestDistance) {
      best = *it;
      bestDistance = distance;
      if (distance == 0) break;
    }
  }
  return best;
}

QRectF SliceTrack::itemRect(const TimelineViewport& viewport, size_t index, int top) const {
  const double x0 = viewport.xAt(m_row.starts[index]);
  const double x1 = viewport.xAt(m_row.starts[index] + m_row.durations[index]);
  return QRectF(x0, top + m_row.depths[index] * kLaneHeight, std::max(x1 - x0, 1.0), kLaneHeight - 2);
}

}  // namespace dfc::views
