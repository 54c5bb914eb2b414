#include "timeline/TimelineView.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace dfc::views {
namespace {

QString argText(const profile::ArgValue& value) {
  if (const auto* number = std::get_if<double>(&value)) return QString::number(*number, 'g', 10);
  return QString::fromStdString(std::get<std::string>(value));
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<dfc::views::SliceInfo>();
  qRegisterMetaType<dfc::views::RangeSummary>();
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(300, 120);
}

void TimelineView::setData(TimelineData data) {
  m_data = std::move(data);
  m_selected.reset();
  m_hovered.reset();
  m_range.reset();
  m_scrollY = 0;
  m_rowOffsets.clear();
  int y = 0;
  for (const TimelineRow& row : m_data.rows) {
    m_rowOffsets.push_back(y);
    y += row.depthCount * kLaneHeight + kRowGap;
  }
  zoomToFit();
}

void TimelineView::zoomToFit() {
  const double span = std::max(m_data.endUs - m_data.startUs, 1.0);
  setVisibleRange(m_data.startUs - span * 0.01, span * 1.02);
}

void TimelineView::setVisibleRange(double startUs, double durationUs) {
  m_viewStart = startUs;
  m_viewDuration = std::max(durationUs, 1e-3);
  clampView();
  update();
  notifyVisibleRange();
}

void TimelineView::notifyVisibleRange() {
  if (m_viewStart == m_notifiedStart && m_viewDuration == m_notifiedDuration) return;
  m_notifiedStart = m_viewStart;
  m_notifiedDuration = m_viewDuration;
  emit visibleRangeChanged(m_viewStart, m_viewDuration);
}

void TimelineView::selectRange(double startUs, double endUs, int firstRow, int lastRow) {
  m_rangeFirstRow = firstRow;
  m_rangeLastRow = lastRow;
  m_range = summarizeRange(m_data, startUs, endUs, firstRow, lastRow);
  update();
  emit rangeSelected(*m_range);
}

void TimelineView::clearRange() {
  if (!m_range) return;
  m_range.reset();
  update();
  emit rangeCleared();
}

double TimelineView::plotWidth() const { return std::max(1, width() - kLabelWidth); }
double TimelineView::pxPerUs() const { return plotWidth() / m_viewDuration; }
double TimelineView::timeAt(double x) const { return m_viewStart + (x - kLabelWidth) / pxPerUs(); }
double TimelineView::xAt(double us) const { return kLabelWidth + (us - m_viewStart) * pxPerUs(); }
int TimelineView::rowTop(int row) const { return kRulerHeight + 4 + m_rowOffsets[static_cast<size_t>(row)] - m_scrollY; }
int TimelineView::contentHeight() const {
  const int rows = m_data.rows.empty() ? 0 : m_rowOffsets.back() + m_data.rows.back().depthCount * kLaneHeight + kRowGap;
  return rows + static_cast<int>(m_data.counters.size()) * (kCounterHeight + kRowGap);
}

int TimelineView::counterTop(size_t counter) const {
  const int rows = m_data.rows.empty() ? 0 : m_rowOffsets.back() + m_data.rows.back().depthCount * kLaneHeight + kRowGap;
  return kRulerHeight + 4 + rows + static_cast<int>(counter) * (kCounterHeight + kRowGap) - m_scrollY;
}

void TimelineView::clampView() {
  const double span = std::max(m_data.endUs - m_data.startUs, 1.0);
  m_viewDuration = std::min(m_viewDuration, span * 4);
  m_viewStart = std::clamp(m_viewStart, m_data.startUs - span, m_data.endUs);
  const int maxScroll = std::max(0, contentHeight() - (height() - kRulerHeight - 4));
  m_scrollY = std::clamp(m_scrollY, 0, maxScroll);
}

QRectF TimelineView::sliceRect(int row, size_t index) const {
  const TimelineRow& r = m_data.rows[static_cast<size_t>(row)];
  const double x0 = xAt(r.starts[index]);
  const double x1 = xAt(r.starts[index] + r.durations[index]);
  const int top = rowTop(row) + r.depths[index] * kLaneHeight;
  return QRectF(x0, top, std::max(x1 - x0, 1.0), kLaneHeight - 2);
}

std::optional<TimelineView::SliceRef> TimelineView::sliceAt(QPoint pos) const {
  if (pos.x() < kLabelWidth || pos.y() < kRulerHeight) return std::nullopt;
  const int r = rowAtY(pos.y());
  if (r < 0) return std::nullopt;
  const TimelineRow& row = m_data.rows[static_cast<size_t>(r)];
  const auto lane = static_cast<size_t>((pos.y() - rowTop(r)) / kLaneHeight);
  if (lane >= row.laneSlices.size()) return std::nullopt;
  const auto& slices = row.laneSlices[lane];
  const double t = timeAt(pos.x());
  const double tolerance = 2.0 / pxPerUs();  // narrow slices stay clickable
  // Slices of one lane never overlap: their ends ascend, so binary search on the end.
  auto it = std::lower_bound(slices.begin(), slices.end(), t - tolerance,
                             [&](uint32_t i, double v) { return row.starts[i] + row.durations[i] < v; });
  std::optional<SliceRef> best;
  double bestDistance = tolerance;
  for (; it != slices.end() && row.starts[*it] <= t + tolerance; ++it) {
    const double start = row.starts[*it];
    const double end = start + row.durations[*it];
    const double distance = t < start ? start - t : (t > end ? t - end : 0.0);
    if (distance <= bestDistance) {
      best = SliceRef{r, *it};
      bestDistance = distance;
      if (distance == 0) break;
    }
  }
  return best;
}

int TimelineView::rowAtY(int y) const {
  for (size_t r = 0; r < m_data.rows.size(); ++r) {
    const int top = rowTop(static_cast<int>(r));
    if (y >= top && y < top + m_data.rows[r].depthCount * kLaneHeight) return static_cast<int>(r);
  }
  return -1;
}

SliceInfo TimelineView::sliceInfo(const SliceRef& ref) const {
  SliceInfo info;
  if (ref.row < 0 || static_cast<size_t>(ref.row) >= m_data.rows.size()) return info;
  const TimelineRow& row = m_data.rows[static_cast<size_t>(ref.row)];
  if (ref.index >= row.size()) return info;
  const profile::CompactTrace& trace = *m_data.trace;
  const profile::CompactEvent& ev = trace.events[row.events[ref.index]];
  auto text = [](std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); };
  info.row = ref.row;
  info.index = static_cast<qsizetype>(ref.index);
  info.name = text(trace.string(ev.name));
  info.category = text(trace.string(ev.cat));
  info.rowName = row.name;
  info.pid = row.pid;
  info.tid = row.tid;
  info.startUs = row.starts[ref.index];
  info.durationUs = row.durations[ref.index];
  for (const auto& [key, value] : trace.args(ev)) info.args.append({QString::fromStdString(key), argText(value)});
  return info;
}

void TimelineView::selectSlice(const SliceRef& ref) {
  m_selected = ref;
  update();
  emit sliceSelected(sliceInfo(ref));
}

void TimelineView::zoomAround(double x, double factor) {
  const double anchor = timeAt(std::max<double>(x, kLabelWidth));
  const double fraction = (std::max<double>(x, kLabelWidth) - kLabelWidth) / plotWidth();
  m_viewDuration = std::max(m_viewDuration * factor, 1e-3);
  clampView();
  m_viewStart = anchor - fraction * m_viewDuration;
  clampView();
  update();
  notifyVisibleRange();
}

void TimelineView::panPixels(double dx, double dy) {
  m_viewStart -= dx / pxPerUs();
  m_scrollY -= static_cast<int>(dy);
  clampView();
  update();
  notifyVisibleRange();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    panPixels(0, delta.y() / 2.0);
  } else if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {
    panPixels(delta.x() / 2.0, 0);
  } else if (delta.y() != 0) {
    zoomAround(event->position().x(), std::pow(0.8, delta.y() / 120.0));
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  const bool rangeButton = event->button() == Qt::RightButton ||
                           (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
  if (rangeButton && event->position().x() >= kLabelWidth) {
    m_rangeDragging = true;
    m_pressPos = event->position().toPoint();
    return;
  }
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  m_pressed = true;
  m_dragging = false;
  m_pressPos = event->position().toPoint();
  m_pressViewStart = m_viewStart;
  m_pressScrollY = m_scrollY;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_rangeDragging) {
    // Rows the drag spans vertically; starting on the ruler means all rows.
    int first = m_pressPos.y() < kRulerHeight ? 0 : rowAtY(m_pressPos.y());
    int last = m_pressPos.y() < kRulerHeight ? -1 : rowAtY(pos.y());
    if (first < 0) first = 0;
    if (last >= 0 && last < first) std::swap(first, last);
    if (m_pressPos.y() >= kRulerHeight && rowAtY(pos.y()) < 0) last = -1;
    selectRange(timeAt(m_pressPos.x()), timeAt(std::max<double>(pos.x(), kLabelWidth)), first, last);
    return;
  }
  if (m_pressed && (event->buttons() & Qt::LeftButton)) {
    if ((pos - m_pressPos).manhattanLength() > 3) m_dragging = true;
    if (m_dragging) {
      m_viewStart = m_pressViewStart - (pos.x() - m_pressPos.x()) / pxPerUs();
      m_scrollY = m_pressScrollY - (pos.y() - m_pressPos.y());
      clampView();
      setCursor(Qt::ClosedHandCursor);
      update();
      notifyVisibleRange();
      return;
    }
  }
  const auto hit = sliceAt(pos);
  const bool changed = hit.has_value() != m_hovered.has_value() ||
                       (hit && (hit->row != m_hovered->row || hit->index != m_hovered->index));
  m_hovered = hit;
  if (changed) update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (m_rangeDragging) {
    m_rangeDragging = false;
    if ((event->position().toPoint() - m_pressPos).manhattanLength() <= 3) clearRange();  // a click clears it
    return;
  }
  if (event->button() != Qt::LeftButton || !m_pressed) return QWidget::mouseReleaseEvent(event);
  m_pressed = false;
  unsetCursor();
  if (m_dragging) {
    m_dragging = false;
    return;
  }
  if (const auto hit = sliceAt(event->position().toPoint())) {
    selectSlice(*hit);
  } else if (m_selected) {
    m_selected.reset();
    update();
    emit selectionCleared();
  }
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  // Perfetto's WASD: W/S zoom around the centre, A/D pan by a tenth.
  const double centre = kLabelWidth + plotWidth() / 2;
  switch (event->key()) {
    case Qt::Key_W: zoomAround(centre, 0.8); break;
    case Qt::Key_S: zoomAround(centre, 1.25); break;
    case Qt::Key_A: panPixels(plotWidth() / 10, 0); break;
    case Qt::Key_D: panPixels(-plotWidth() / 10, 0); break;
    case Qt::Key_0:
    case Qt::Key_Home: zoomToFit(); break;
    case Qt::Key_Escape: clearRange(); break;
    default: QWidget::keyPressEvent(event);
  }
}

void TimelineView::leaveEvent(QEvent* event) {
  if (m_hovered) {
    m_hovered.reset();
    update();
  }
  QWidget::leaveEvent(event);
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const auto hit = sliceAt(help->pos())) {
      const SliceInfo info = sliceInfo(*hit);
      QString text = QStringLiteral("<b>%1</b><br>").arg(info.name.toHtmlEscaped());
      text += tr("start %1, duration %2").arg(formatDuration(info.startUs - m_data.startUs),
                                              formatDuration(info.durationUs));
      for (const auto& [key, value] : info.args)
        text += QStringLiteral("<br>%1: %2").arg(key.toHtmlEscaped(), value.toHtmlEscaped());
      QToolTip::showText(help->globalPos(), text, this);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  if (event->type() == QEvent::Resize) clampView();
  return QWidget::event(event);
}

}  // namespace dfc::views
