// TimelineView's painting: each visible track paints itself (SliceTrack,
// CounterTrack), then the selected range and the ruler go on top. Kept apart
// from input handling to keep files short.
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
  paintTracks(painter, false);
  paintTracks(painter, true);  // over the scrolled rows that slid under the band
  paintRange(painter);
  paintRuler(painter);
}

void TimelineView::paintTracks(QPainter& painter, bool pinned) {
  const int bandTop = kRulerHeight + (pinned ? 0 : scrollTop() - kRulerHeight);
  if (pinned && !m_pinned.empty()) {
    painter.fillRect(QRect(0, kRulerHeight, kLabelWidth, scrollTop() - kRulerHeight), QColor(0xe4, 0xe8, 0xf2));
    painter.fillRect(QRect(kLabelWidth, kRulerHeight, width() - kLabelWidth, scrollTop() - kRulerHeight),
                     QColor(0xf4, 0xf6, 0xfb));
  }
  const TimelineViewport view = viewport();
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    const int top = rowTop(static_cast<int>(t));
    if (isPinned(static_cast<int>(t)) != pinned || top + m_tracks[t]->height() < bandTop || top > height()) continue;
    TrackPaintState state{view, m_stats, std::nullopt, std::nullopt, m_matchNames.empty() ? nullptr : &m_matchNames,
                          t < m_rowHits.size() ? &m_rowHits[t] : nullptr};
    if (m_hovered && m_hovered->row == static_cast<int>(t)) state.hovered = m_hovered->index;
    if (m_selected && m_selected->row == static_cast<int>(t)) state.selected = m_selected->index;
    m_tracks[t]->paint(painter, state, top);
  }
  if (pinned && !m_pinned.empty()) {
    painter.setClipping(false);
    painter.setPen(QPen(QColor(0x70, 0x80, 0xa8), 2));
    painter.drawLine(0, scrollTop() - 2, width(), scrollTop() - 2);
  }
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
  const QString text = tr("%n slice(s), wall %1 in %2", nullptr, static_cast<int>(m_range->slices))
                           .arg(formatDuration(m_range->wallUs), formatDuration(m_range->endUs - m_range->startUs));
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

QString TimelineView::rangeSummaryHtml(const RangeSummary& range) {
  constexpr size_t kNames = 15;
  QString html =
      QStringLiteral("<h3>%1</h3><p>").arg(tr("Range of %1").arg(formatDuration(range.endUs - range.startUs)));
  html += tr("%n slice(s); rows busy (wall) %1, self time %2", nullptr, static_cast<int>(range.slices))
              .arg(formatDuration(range.wallUs), formatDuration(range.selfUs))
              .toHtmlEscaped();
  html += QStringLiteral(
              "</p><table cellspacing=\"6\"><tr><th "
              "align=\"left\">%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
              .arg(tr("name"), tr("count"), tr("wall"), tr("self"), tr("mean"));
  for (size_t i = 0; i < std::min(kNames, range.groups.size()); ++i) {
    const profile::AggregateGroup& g = range.groups[i];
    html += QStringLiteral(
                "<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td>"
                "<td align=\"right\">%4</td><td align=\"right\">%5</td></tr>")
                .arg(QString::fromStdString(g.key).toHtmlEscaped())
                .arg(g.count)
                .arg(formatDuration(g.wallUs), formatDuration(g.selfUs), formatDuration(g.meanUs()));
  }
  html += QStringLiteral("</table>");
  if (range.groups.size() > kNames)
    html += tr("<p>%n more name(s)</p>", nullptr, static_cast<int>(range.groups.size() - kNames));
  return html;
}

}  // namespace dfc::views
