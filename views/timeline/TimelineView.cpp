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

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  qRegisterMetaType<dfc::views::SliceInfo>();
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(300, 120);
}

void TimelineView::setData(TimelineData data) {
  m_data = std::move(data);
  m_selected.reset();
  m_hovered.reset();
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
}

double TimelineView::plotWidth() const { return std::max(1, width() - kLabelWidth); }
double TimelineView::pxPerUs() const { return plotWidth() / m_viewDuration; }
double TimelineView::timeAt(double x) const { return m_viewStart + (x - kLabelWidth) / pxPerUs(); }
double TimelineView::xAt(double us) const { return kLabelWidth + (us - m_viewStart) * pxPerUs(); }
int TimelineView::rowTop(int row) const { return kRulerHeight + 4 + m_rowOffsets[static_cast<size_t>(row)] - m_scrollY; }
int TimelineView::contentHeight() const {
  if (m_data.rows.empty()) return 0;
  return m_rowOffsets.back() + m_data.rows.back().depthCount * kLaneHeight + kRowGap;
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
  for (size_t r = 0; r < m_data.rows.size(); ++r) {
    const TimelineRow& row = m_data.rows[r];
    const int top = rowTop(static_cast<int>(r));
    if (pos.y() < top || pos.y() >= top + row.depthCount * kLaneHeight) continue;
    const int lane = (pos.y() - top) / kLaneHeight;
    const double t = timeAt(pos.x());
    const double tolerance = 2.0 / pxPerUs();  // narrow slices stay clickable
    auto it = std::lower_bound(row.starts.begin(), row.starts.end(), t - tolerance - row.maxDurationUs);
    std::optional<SliceRef> best;
    double bestDistance = tolerance;
    for (size_t i = static_cast<size_t>(it - row.starts.begin()); i < row.size() && row.starts[i] <= t + tolerance; ++i) {
      if (row.depths[i] != lane) continue;
      const double start = row.starts[i];
      const double end = start + row.durations[i];
      const double distance = t < start ? start - t : (t > end ? t - end : 0.0);
      if (distance <= bestDistance) {
        best = SliceRef{static_cast<int>(r), i};
        bestDistance = distance;
        if (distance == 0) break;
      }
    }
    return best;
  }
  return std::nullopt;
}

SliceInfo TimelineView::sliceInfo(const SliceRef& ref) const {
  SliceInfo info;
  if (ref.row < 0 || static_cast<size_t>(ref.row) >= m_data.rows.size()) return info;
  const TimelineRow& row = m_data.rows[static_cast<size_t>(ref.row)];
  if (ref.index >= row.size()) return info;
  const profile::TraceEvent& ev = m_data.trace->events[row.events[ref.index]];
  info.row = ref.row;
  info.index = static_cast<qsizetype>(ref.index);
  info.name = QString::fromStdString(ev.name);
  info.category = QString::fromStdString(ev.cat);
  info.rowName = row.name;
  info.pid = ev.pid;
  info.tid = ev.tid;
  info.startUs = row.starts[ref.index];
  info.durationUs = row.durations[ref.index];
  for (const auto& [key, value] : ev.args) info.args.append({QString::fromStdString(key), argText(value)});
  return info;
}

void TimelineView::selectSlice(const SliceRef& ref) {
  m_selected = ref;
  update();
  emit sliceSelected(sliceInfo(ref));
}

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

  // One pending fold per lane: consecutive narrow slices merge into one block.
  struct Fold { double x0 = 0, x1 = -1; size_t count = 0; };
  std::vector<Fold> folds(static_cast<size_t>(row.depthCount));
  const QColor foldColor(0x8a, 0x8f, 0xa0);
  auto flush = [&](size_t lane) {
    Fold& fold = folds[lane];
    if (fold.count == 0) return;
    const QRectF box(fold.x0, top + static_cast<double>(lane) * kLaneHeight, std::max(fold.x1 - fold.x0, 1.0), kLaneHeight - 2);
    painter.fillRect(box, foldColor);
    ++m_stats.blocks;
    fold = {};
  };

  // Slices starting before t0 - maxDuration cannot reach the visible range.
  auto it = std::lower_bound(row.starts.begin(), row.starts.end(), t0 - row.maxDurationUs);
  QFontMetrics metrics = painter.fontMetrics();
  for (size_t i = static_cast<size_t>(it - row.starts.begin()); i < row.size(); ++i) {
    const double start = row.starts[i];
    if (start > t1) break;
    const double end = start + row.durations[i];
    if (end < t0) continue;
    ++m_stats.visited;
    const size_t lane = row.depths[i];
    const double x0 = std::max(left - 1, left + (start - t0) * scale);
    const double x1 = std::min(right + 1, left + (end - t0) * scale);
    if (x1 - x0 < kFoldPx) {
      Fold& fold = folds[lane];
      if (fold.count > 0 && x0 > fold.x1 + 1) flush(lane);
      if (fold.count == 0) fold.x0 = x0;
      fold.x1 = std::max(fold.x1, x1);
      ++fold.count;
      ++m_stats.folded;
      continue;
    }
    flush(lane);
    const QRectF box(x0, top + static_cast<double>(lane) * kLaneHeight, x1 - x0, kLaneHeight - 2);
    const QColor fill = QColor::fromRgb(row.colors[i]);
    const bool hovered = m_hovered && m_hovered->row == rowIndex && m_hovered->index == i;
    painter.fillRect(box, hovered ? fill.lighter(115) : fill);
    ++m_stats.drawn;
    if (box.width() > 24) {
      const auto& ev = m_data.trace->events[row.events[i]];
      painter.setPen(QColor(0x10, 0x10, 0x10));
      const QRectF textBox = box.adjusted(3, 0, -3, 0);
      painter.drawText(textBox, Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(QString::fromStdString(ev.name), Qt::ElideRight,
                                          static_cast<int>(textBox.width())));
    }
  }
  for (size_t lane = 0; lane < folds.size(); ++lane) flush(lane);

  if (m_selected && m_selected->row == rowIndex) {
    painter.setPen(QPen(QColor(0x10, 0x10, 0x10), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(sliceRect(rowIndex, m_selected->index).adjusted(-1, -1, 1, 1));
  }
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

void TimelineView::zoomAround(double x, double factor) {
  const double anchor = timeAt(std::max<double>(x, kLabelWidth));
  const double fraction = (std::max<double>(x, kLabelWidth) - kLabelWidth) / plotWidth();
  m_viewDuration = std::max(m_viewDuration * factor, 1e-3);
  clampView();
  m_viewStart = anchor - fraction * m_viewDuration;
  clampView();
  update();
}

void TimelineView::panPixels(double dx, double dy) {
  m_viewStart -= dx / pxPerUs();
  m_scrollY -= static_cast<int>(dy);
  clampView();
  update();
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
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  m_pressed = true;
  m_dragging = false;
  m_pressPos = event->position().toPoint();
  m_pressViewStart = m_viewStart;
  m_pressScrollY = m_scrollY;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_pressed && (event->buttons() & Qt::LeftButton)) {
    if ((pos - m_pressPos).manhattanLength() > 3) m_dragging = true;
    if (m_dragging) {
      m_viewStart = m_pressViewStart - (pos.x() - m_pressPos.x()) / pxPerUs();
      m_scrollY = m_pressScrollY - (pos.y() - m_pressPos.y());
      clampView();
      setCursor(Qt::ClosedHandCursor);
      update();
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
