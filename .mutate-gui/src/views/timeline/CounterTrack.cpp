#include "timeline/CounterTrack.h"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

namespace dfc::views {

void CounterTrack::paint(QPainter& painter, const TrackPaintState& state, int top) const {
  const TimelineViewport& viewport = state.viewport;
  paintFrame(painter, viewport, top);
  painter.setPen(QColor(0x70, 0x70, 0x78));
  painter.drawText(QRect(6, top + kLaneHeight, kLabelWidth - 10, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QStringLiteral("%1 … %2").arg(m_counter.minValue, 0, 'g', 4).arg(m_counter.maxValue, 0, 'g', 4));
  painter.setClipRect(viewport.plotRect());
  const double span = m_counter.maxValue - m_counter.minValue;
  auto yOf = [&](double v) {
    const double f = span > 0 ? (v - m_counter.minValue) / span : 0.5;
    return top + kCounterHeight - 2 - f * (kCounterHeight - 4);
  };
  // From the sample before the view to the one after it; one point per pixel column.
  auto it = std::lower_bound(m_counter.ts.begin(), m_counter.ts.end(), viewport.startUs);
  size_t i = static_cast<size_t>(it - m_counter.ts.begin());
  if (i > 0) --i;
  // A stepped polyline; samples sharing a pixel column keep only their range.
  QPolygonF line;
  int column = std::numeric_limits<int>::min();
  double columnMin = 0, columnMax = 0, lastY = 0;
  auto flushColumn = [&] {
    if (column == std::numeric_limits<int>::min()) return;
    line << QPointF(column, columnMin) << QPointF(column, columnMax) << QPointF(column, lastY);
  };
  for (; i < m_counter.ts.size(); ++i) {
    const double x = viewport.xAt(m_counter.ts[i]);
    const double y = yOf(m_counter.values[i]);
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
    if (x > viewport.width) break;
  }
  flushColumn();
  if (!line.isEmpty()) line << QPointF(std::max(line.last().x(), static_cast<double>(viewport.width)), lastY);
  painter.setPen(QPen(QColor(0x2a, 0x6f, 0xc9), 1.5));
  painter.drawPolyline(line);
  painter.setClipping(false);
}

}  // namespace dfc::views
