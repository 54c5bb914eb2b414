// TimelineView's painting: cull each lane by binary search, pick the row's
// level of detail for the current zoom, fold what is still narrower than
// kFoldPx, draw. Kept apart from input handling to keep files short.
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <limits>

#include "timeline/TimelineView.h"

namespace dfc::views {
namespace {

// A tick step of 1, 2 or 5 times a power of ten, at least `minUs` long.
double niceStep(double minUs) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(minUs)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= minUs) return m * magnitude;
  }
  return 10 * magnitude;
}

QString tickLabel(double us, double stepUs) {
  double unit = 1;
  QString suffix = QStringLiteral("us");
  if (stepUs >= 1e5) {
    unit = 1e6;
    suffix = QStringLiteral("s");
  } else if (stepUs >= 100) {
    unit = 1e3;
    suffix = QStringLiteral("ms");
  }
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(stepUs / unit) + 1e-9)));
  return QStringLiteral("%1 %2").arg(us / unit, 0, 'f', decimals).arg(suffix);
}

const QColor kFoldColor(0x8a, 0x8f, 0xa0);

}  // namespace

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), QColor(0xfc, 0xfc, 0xfc));
  painter.fillRect(QRect(0, 0, kLabelWidth, height()), QColor(0xf0, 0xf0, 0xf3));
  m_stats = {};
  if (m_data.empty()) {
    painter.setPen(QColor(0x66, 0x66, 0x66));
    painter.drawText(rect(), Qt::AlignCenter, tr("Open a trace to see the run's timeline"));
    return;
  }
  for (size_t r = 0; r < m_data.rows.size(); ++r) {
    const int top = rowTop(static_cast<int>(r));
    const int bottom = top + m_data.rows[r].depthCount * kLaneHeight;
    if (bottom < kRulerHeight || top > height()) continue;
    paintRow(painter, static_cast<int>(r), top);
  }
  for (size_t c = 0; c < m_data.counters.size(); ++c) {
    const int top = counterTop(c);
    if (top + kCounterHeight < kRulerHeight || top > height()) continue;
    paintCounter(painter, m_data.counters[c], top);
  }
  paintRange(painter);
  paintRuler(painter);
}

void TimelineView::paintRow(QPainter& painter, int rowIndex, int top) {
  const TimelineRow& row = m_data.rows[static_cast<size_t>(rowIndex)];
  const int rowHeight = row.depthCount * kLaneHeight;
  painter.setClipping(false);
  painter.setPen(QColor(0xdd, 0xdd, 0xe2));
  painter.drawLine(0, top + rowHeight + kRowGap / 2, width(), top + rowHeight + kRowGap / 2);
  painter.setPen(QColor(0x30, 0x30, 0x38));
  const QRect labelRect(6, top, kLabelWidth - 10, kLaneHeight);
  painter.drawText(labelRect, Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(row.name, Qt::ElideMiddle, labelRect.width()));

  painter.setClipRect(QRect(kLabelWidth, kRulerHeight, width() - kLabelWidth, height() - kRulerHeight));
  const double t0 = m_viewStart;
  const double t1 = m_viewStart + m_viewDuration;
  const double scale = pxPerUs();
  const double left = kLabelWidth;
  const double right = width();
  const QFontMetrics metrics = painter.fontMetrics();
  const profile::CompactTrace& trace = *m_data.trace;
  // The coarsest precomputed level whose merged runs are narrower than a fold.
  const TimelineLod* lod = row.lodFor(kFoldPx / scale);

  for (size_t lane = 0; lane < row.laneSlices.size(); ++lane) {
    const double y = top + static_cast<double>(lane) * kLaneHeight;
    // One pending fold: consecutive narrow items merge into one block.
    double foldX0 = 0, foldX1 = -1;
    size_t foldCount = 0;
    auto flush = [&] {
      if (foldCount == 0) return;
      painter.fillRect(QRectF(foldX0, y, std::max(foldX1 - foldX0, 1.0), kLaneHeight - 2), kFoldColor);
      ++m_stats.blocks;
      foldCount = 0;
    };
    auto visit = [&](double start, double end, size_t sliceCount, size_t slice) {
      ++m_stats.visited;
      const double x0 = std::max(left - 1, left + (start - t0) * scale);
      const double x1 = std::min(right + 1, left + (end - t0) * scale);
      if (x1 - x0 < kFoldPx || sliceCount > 1) {
        if (foldCount > 0 && x0 > foldX1 + 1) flush();
        if (foldCount == 0) foldX0 = x0;
        foldX1 = std::max(foldX1, x1);
        foldCount += sliceCount;
        m_stats.folded += sliceCount;
        return;
      }
      flush();
      const QRectF box(x0, y, x1 - x0, kLaneHeight - 2);
      const QColor fill = QColor::fromRgb(row.colors[slice]);
      const bool hovered = m_hovered && m_hovered->row == rowIndex && m_hovered->index == slice;
      painter.fillRect(box, hovered ? fill.lighter(115) : fill);
      ++m_stats.drawn;
      if (box.width() > 24) {
        const std::string_view name = trace.string(trace.events[row.events[slice]].name);
        painter.setPen(QColor(0x10, 0x10, 0x10));
        const QRectF textBox = box.adjusted(3, 0, -3, 0);
        painter.drawText(textBox, Qt::AlignVCenter | Qt::AlignLeft,
                         metrics.elidedText(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())),
                                            Qt::ElideRight, static_cast<int>(textBox.width())));
      }
    };
    const auto& slices = row.laneSlices[lane];
    if (lod) {
      const auto& items = lod->lanes[lane];
      auto it = std::lower_bound(items.begin(), items.end(), t0,
                                 [](const TimelineLodItem& item, double t) { return item.end < t; });
      for (; it != items.end() && it->start <= t1; ++it)
        visit(it->start, it->end, it->count, it->count == 1 ? slices[it->first] : 0);
    } else {
      // Lanes never overlap, so ends ascend: binary search on the end.
      auto it = std::lower_bound(slices.begin(), slices.end(), t0,
                                 [&](uint32_t i, double t) { return row.starts[i] + row.durations[i] < t; });
      for (; it != slices.end() && row.starts[*it] <= t1; ++it)
        visit(row.starts[*it], row.starts[*it] + row.durations[*it], 1, *it);
    }
    flush();
  }
  paintInstants(painter, row, top);

  if (m_selected && m_selected->row == rowIndex) {
    painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(sliceRect(rowIndex, m_selected->index).adjusted(-1, -1, 1, 1));
  }
  painter.setClipping(false);
}

// Instants as short dark ticks with a small head; at most one per pixel.
void TimelineView::paintInstants(QPainter& painter, const TimelineRow& row, int top) {
  if (row.instants.empty()) return;
  const double t0 = m_viewStart;
  const double t1 = m_viewStart + m_viewDuration;
  auto it = std::lower_bound(row.instants.begin(), row.instants.end(), t0);
  int lastX = -1;
  painter.setPen(QPen(QColor(0x30, 0x30, 0x50), 1));
  painter.setBrush(QColor(0x30, 0x30, 0x50));
  for (; it != row.instants.end() && *it <= t1; ++it) {
    const int x = static_cast<int>(xAt(*it));
    if (x == lastX) continue;
    lastX = x;
    painter.drawLine(x, top, x, top + kLaneHeight - 2);
    painter.drawPolygon(QPolygon({QPoint(x - 3, top), QPoint(x + 3, top), QPoint(x, top + 4)}));
  }
}

// A counter as a stepped line over its own row, with its range in the label.
void TimelineView::paintCounter(QPainter& painter, const TimelineCounter& counter, int top) {
  painter.setClipping(false);
  painter.setPen(QColor(0xdd, 0xdd, 0xe2));
  painter.drawLine(0, top + kCounterHeight + kRowGap / 2, width(), top + kCounterHeight + kRowGap / 2);
  painter.setPen(QColor(0x30, 0x30, 0x38));
  painter.drawText(QRect(6, top, kLabelWidth - 10, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(counter.name, Qt::ElideMiddle, kLabelWidth - 10));
  painter.setPen(QColor(0x70, 0x70, 0x78));
  painter.drawText(QRect(6, top + kLaneHeight, kLabelWidth - 10, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QStringLiteral("%1 … %2").arg(counter.minValue, 0, 'g', 4).arg(counter.maxValue, 0, 'g', 4));
  painter.setClipRect(QRect(kLabelWidth, kRulerHeight, width() - kLabelWidth, height() - kRulerHeight));
  const double span = counter.maxValue - counter.minValue;
  auto yOf = [&](double v) {
    const double f = span > 0 ? (v - counter.minValue) / span : 0.5;
    return top + kCounterHeight - 2 - f * (kCounterHeight - 4);
  };
  // From the sample before the view to the one after it; one point per pixel column.
  auto it = std::lower_bound(counter.ts.begin(), counter.ts.end(), m_viewStart);
  size_t i = static_cast<size_t>(it - counter.ts.begin());
  if (i > 0) --i;
  // A stepped polyline; samples sharing a pixel column keep only their range.
  QPolygonF line;
  int column = std::numeric_limits<int>::min();
  double columnMin = 0, columnMax = 0, lastY = 0;
  auto flushColumn = [&] {
    if (column == std::numeric_limits<int>::min()) return;
    line << QPointF(column, columnMin) << QPointF(column, columnMax) << QPointF(column, lastY);
  };
  for (; i < counter.ts.size(); ++i) {
    const double x = xAt(counter.ts[i]);
    const double y = yOf(counter.values[i]);
    const int col = static_cast<int>(std::floor(x));
    if (col != column) {
      flushColumn();
      if (column != std::numeric_limits<int>::min()) line << QPointF(col, lastY);  // hold until the next sample
      column = col;
      columnMin = columnMax = y;
    }
    columnMin = std::min(columnMin, y);
    columnMax = std::max(columnMax, y);
    lastY = y;
    if (x > width()) break;
  }
  flushColumn();
  if (!line.isEmpty()) line << QPointF(std::max(line.last().x(), static_cast<double>(width())), lastY);
  painter.setPen(QPen(QColor(0x2a, 0x6f, 0xc9), 1.5));
  painter.drawPolyline(line);
  painter.setClipping(false);
}

void TimelineView::paintRange(QPainter& painter) {
  if (!m_range) return;
  const double x0 = std::max<double>(kLabelWidth, xAt(m_range->startUs));
  const double x1 = std::min<double>(width(), xAt(m_range->endUs));
  painter.setClipRect(QRect(kLabelWidth, 0, width() - kLabelWidth, height()));
  if (x1 >= x0) {
    painter.fillRect(QRectF(x0, kRulerHeight, std::max(x1 - x0, 1.0), height() - kRulerHeight), QColor(40, 110, 220, 40));
    painter.setPen(QColor(40, 110, 220));
    painter.drawLine(QPointF(x0, kRulerHeight), QPointF(x0, height()));
    painter.drawLine(QPointF(x1, kRulerHeight), QPointF(x1, height()));
  }
  const QString text = tr("%n slice(s), total %1 in %2", nullptr, static_cast<int>(m_range->slices))
                           .arg(formatDuration(m_range->totalUs), formatDuration(m_range->endUs - m_range->startUs));
  const QFontMetrics metrics = painter.fontMetrics();
  const int w = metrics.horizontalAdvance(text) + 16;
  const double boxX = std::clamp(x0 + 4, static_cast<double>(kLabelWidth + 4), static_cast<double>(width() - w - 4));
  const QRectF box(boxX, kRulerHeight + 4, w, metrics.height() + 8);
  painter.fillRect(box, QColor(255, 255, 255, 235));
  painter.setPen(QColor(40, 110, 220));
  painter.drawRect(box);
  painter.setPen(QColor(0x10, 0x10, 0x10));
  painter.drawText(box, Qt::AlignCenter, text);
  painter.setClipping(false);
}

void TimelineView::paintRuler(QPainter& painter) {
  const QRect ruler(0, 0, width(), kRulerHeight);
  painter.fillRect(ruler, QColor(0xe8, 0xe9, 0xee));
  painter.setPen(QColor(0xb0, 0xb0, 0xb8));
  painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
  painter.setPen(QColor(0x40, 0x40, 0x48));
  painter.drawText(QRect(6, 0, kLabelWidth - 10, kRulerHeight), Qt::AlignVCenter,
                   tr("%n slice(s)", nullptr, static_cast<int>(m_data.sliceCount)));
  // Ticks are relative to the trace start so labels stay short.
  const double step = niceStep(100.0 / pxPerUs());
  const double relStart = m_viewStart - m_data.startUs;
  const double firstTick = std::ceil(relStart / step) * step;
  for (double rel = firstTick; rel <= relStart + m_viewDuration; rel += step) {
    const double x = xAt(m_data.startUs + rel);
    if (x < kLabelWidth) continue;
    painter.setPen(QColor(0x90, 0x90, 0x98));
    painter.drawLine(QPointF(x, kRulerHeight - 7), QPointF(x, kRulerHeight - 1));
    painter.setPen(QColor(0x40, 0x40, 0x48));
    painter.drawText(QPointF(x + 3, kRulerHeight - 9), tickLabel(rel, step));
  }
}

}  // namespace dfc::views
