#include "timeline/TimelineTrack.h"

#include <QPainter>

namespace dfc::views {

std::optional<size_t> TimelineTrack::itemAt(const TimelineViewport&, QPointF, int) const { return std::nullopt; }

QRectF TimelineTrack::itemRect(const TimelineViewport&, size_t, int) const { return {}; }

void TimelineTrack::paintFrame(QPainter& painter, const TimelineViewport& viewport, int top) const {
  painter.setClipping(false);
  painter.setPen(QColor(0xdd, 0xdd, 0xe2));
  const int separator = top + height() + kRowGap / 2;
  painter.drawLine(0, separator, viewport.width, separator);
  painter.setPen(QColor(0x30, 0x30, 0x38));
  const QRect labelRect(6, top, kLabelWidth - 10, kLaneHeight);
  painter.drawText(labelRect, Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(label(), Qt::ElideMiddle, labelRect.width()));
}

}  // namespace dfc::views
