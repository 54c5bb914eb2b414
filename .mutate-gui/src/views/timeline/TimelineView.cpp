#include "timeline/TimelineView.h"

#include <QHelpEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "profile/RawArgs.h"
#include "timeline/CounterTrack.h"
#include "timeline/SliceTrack.h"

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
  setSelectionState(new SelectionState(this));
}

TimelineView::~TimelineView() = default;

void TimelineView::setSelectionState(SelectionState* selection) {
  if (!selection || selection == m_selection) return;
  if (m_selection) disconnect(m_selection, nullptr, this, nullptr);
  m_selection = selection;
  connect(m_selection, &SelectionState::timeRangeChanged, this, &TimelineView::showRange);
  connect(m_selection, &SelectionState::zoomChanged, this, &TimelineView::showZoom);
  showRange(m_selection->timeRange());
}

void TimelineView::setData(TimelineData data) {
  m_data = std::move(data);
  if (m_identity) applyColorIdentity(m_data, m_identity);
  m_selected.reset();
  m_hovered.reset();
  m_scrollY = 0;
  m_tracks.clear();
  for (const TimelineRow& row : m_data.rows) m_tracks.push_back(std::make_unique<SliceTrack>(row, *m_data.trace));
  for (const TimelineCounter& counter : m_data.counters) m_tracks.push_back(std::make_unique<CounterTrack>(counter));
  m_search = {};
  m_matchNames.clear();
  m_rowHits.clear();
  readSectionTable();
  m_rowOfThread.assign(m_data.trace ? m_data.trace->threads.size() : 0, -1);
  for (size_t r = 0; r < m_data.rows.size(); ++r) m_rowOfThread[m_data.rows[r].thread] = static_cast<int>(r);
  m_pinned.clear();
  layoutTracks();
  // A range or zoom of the previous trace means nothing in this one.
  m_range.reset();
  m_selection->clearTimeRange();
  m_selection->resetZoom();
  zoomToFit();
  emit dataChanged();
  emit legendChanged();
}

void TimelineView::setColorIdentity(SharedColorIdentity identity) {
  m_identity = std::move(identity);
  applyColorIdentity(m_data, m_identity);
  update();
  emit legendChanged();
}

std::vector<LegendEntry> TimelineView::legend() const {
  std::vector<LegendEntry> out;
  if (!m_data.identity) return out;
  for (const TimelineKey& key : m_data.keys) {
    LegendEntry entry;
    entry.key = key.key;
    entry.color = m_data.identity->hypersection(key.key);
    entry.count = static_cast<int>(key.count);
    entry.label = tr("%1 · %n slice(s), %2", nullptr, entry.count).arg(key.key, formatDuration(key.totalUs));
    out.push_back(entry);
  }
  return out;
}

QString TimelineView::legendNote() const { return m_data.identity ? m_data.identity->schemeNote() : QString(); }

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
  const TimeRange range{std::min(startUs, endUs), std::max(startUs, endUs)};
  if (m_selection->timeRange() == range) {
    showRange(range);  // only the rows changed: the state has nothing to announce
  } else {
    m_selection->setTimeRange(range);
  }
}

void TimelineView::clearRange() { m_selection->clearTimeRange(); }

// The selection's range changed (here or elsewhere): summarize it over the
// rows of the last drag.
void TimelineView::showRange(std::optional<TimeRange> range) {
  if (!range) {
    if (!m_range) return;
    m_range.reset();
    update();
    emit rangeCleared();
    return;
  }
  m_range = summarizeRange(m_data, range->startUs, range->endUs, m_rangeFirstRow, m_rangeLastRow);
  update();
  emit rangeSelected(*m_range);
}

void TimelineView::showZoom(std::optional<TimeRange> range) {
  if (range)
    setVisibleRange(range->startUs, range->durationUs());
  else
    zoomToFit();
}

TimelineViewport TimelineView::viewport() const { return {m_viewStart, m_viewDuration, width(), height()}; }
double TimelineView::plotWidth() const { return viewport().plotWidth(); }
double TimelineView::pxPerUs() const { return viewport().pxPerUs(); }
double TimelineView::timeAt(double x) const { return viewport().timeAt(x); }
double TimelineView::xAt(double us) const { return viewport().xAt(us); }
// Zooming out stops at the trace's extent (zoomToFit's 1% margins): a 76 s
// trace is never shown as -50 s .. 200 s.
void TimelineView::clampView() {
  const double span = std::max(m_data.endUs - m_data.startUs, 1.0);
  m_viewDuration = std::min(m_viewDuration, span * 1.02);
  m_viewStart = std::clamp(m_viewStart, m_data.startUs - span * 0.01, m_data.endUs + span * 0.01 - m_viewDuration);
  const int maxScroll = std::max(0, m_scrolledHeight - (height() - scrollTop()));
  m_scrollY = std::clamp(m_scrollY, 0, maxScroll);
}

QRectF TimelineView::sliceRect(int row, size_t index) const {
  return m_tracks[static_cast<size_t>(row)]->itemRect(viewport(), index, rowTop(row));
}

std::optional<TimelineView::SliceRef> TimelineView::sliceAt(QPoint pos) const {
  if (pos.x() < kLabelWidth || pos.y() < kRulerHeight) return std::nullopt;
  const int r = rowAtY(pos.y());
  if (r < 0) return std::nullopt;
  const auto index = m_tracks[static_cast<size_t>(r)]->itemAt(viewport(), pos, rowTop(r));
  if (!index) return std::nullopt;
  return SliceRef{r, *index};
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
  addRelatives(info, row.events[ref.index]);
  // A section call: its section's figures from the table, and the rates this call achieved.
  const std::string_view section = trace.string(ev.section);
  const auto figures = m_sectionFigures.find(std::string(section.substr(0, section.find(' '))));
  if (!section.empty() && figures != m_sectionFigures.end()) {
    info.sectionFigures = figures->second;
    const double us = info.durationUs;
    for (const auto& [key, value] : figures->second) {
      if (key == QLatin1String("ddr_bytes") && us > 0)
        info.sectionFigures.append({QStringLiteral("ddr_gbps (this call)"), QString::number(value.toDouble() / (us * 1e3), 'g', 4)});
      if (key == QLatin1String("tflop") && us > 0)
        info.sectionFigures.append({QStringLiteral("host_tflops (this call)"), QString::number(value.toDouble() / us * 1e6, 'g', 4)});
    }
  }
  return info;
}

// Self time, parent and children from the index: the same for any trace.
void TimelineView::addRelatives(SliceInfo& info, uint32_t event) const {
  const profile::TraceIndex& index = *m_data.index;
  const profile::CompactTrace& trace = *m_data.trace;
  auto text = [](std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); };
  info.selfUs = index.selfUs(event);
  info.mirror = index.isMirrorRow(trace.events[event].thread);
  if (const uint32_t p = index.parent(event); p != profile::TraceIndex::kNoSlice) {
    info.hasParent = true;
    info.parentName = text(trace.string(trace.events[p].name));
    info.parentStartUs = trace.events[p].ts;
    info.parentDurationUs = trace.events[p].dur;
  }
  const std::vector<uint32_t> children = index.children(event);
  info.childCount = static_cast<qsizetype>(children.size());
  for (size_t k = 0; k < children.size() && k < 8; ++k)
    info.children.append({text(trace.string(trace.events[children[k]].name)), trace.events[children[k]].dur});
}

// Our traces write each section's constant figures once, in otherData's
// `sections` table: read it once per trace, to show beside a clicked call.
void TimelineView::readSectionTable() {
  m_sectionFigures.clear();
  if (!m_data.trace) return;
  const auto it = m_data.trace->metadata.find("sections");
  if (it == m_data.trace->metadata.end()) return;
  const QJsonObject table = QJsonDocument::fromJson(QByteArray::fromStdString(it->second)).object();
  for (auto s = table.begin(); s != table.end(); ++s) {
    QList<QPair<QString, QString>>& figures = m_sectionFigures[s.key().toStdString()];
    const QJsonObject fields = s.value().toObject();
    for (auto f = fields.begin(); f != fields.end(); ++f)
      figures.append({f.key(), f.value().isString() ? f.value().toString() : QString::number(f.value().toDouble(), 'g', 10)});
  }
}

void TimelineView::selectSlice(const SliceRef& ref) {
  m_selected = ref;
  update();
  emit sliceSelected(sliceInfo(ref));
  publishSection(ref);
}

// A slice of a section call names its section and hypersection in its args
// (DESIGN §8); other slices (host phases, others' traces) select none.
void TimelineView::publishSection(const SliceRef& ref) {
  if (!m_linked) return;  // the trace is of another PEF: its section ids mean nothing here
  int section = -1;
  QString hypersection;
  if (ref.row >= 0 && static_cast<size_t>(ref.row) < m_data.rows.size() &&
      ref.index < m_data.rows[static_cast<size_t>(ref.row)].size()) {
    // The section key the reader took from the args ("12 conv1"), its id first.
    const profile::CompactTrace& trace = *m_data.trace;
    const profile::CompactEvent& ev = trace.events[m_data.rows[static_cast<size_t>(ref.row)].events[ref.index]];
    const std::string_view key = trace.string(ev.section);
    const std::string id(key.substr(0, key.find(' ')));
    if (const auto number = profile::finiteNumber(id)) section = static_cast<int>(*number);
    const std::string_view hs = trace.string(trace.hypersectionKey(ev));
    hypersection = QString::fromUtf8(hs.data(), static_cast<qsizetype>(hs.size()));
    if (const auto figures = m_sectionFigures.find(id); hypersection.isEmpty() && figures != m_sectionFigures.end())
      for (const auto& [k, v] : figures->second)
        if (k == QLatin1String("hypersection")) hypersection = v;
  }
  m_selection->selectSection(section, hypersection);
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
    m_selection->clearSection();
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
    case Qt::Key_F:  // Perfetto's "focus": zoom to the selected range, remembered for Backspace
      if (m_range && m_range->endUs > m_range->startUs) m_selection->zoomIn({m_range->startUs, m_range->endUs});
      break;
    case Qt::Key_Backspace:
      m_selection->zoomOut();
      break;
    case Qt::Key_0:
    case Qt::Key_Home:
      m_selection->resetZoom();
      break;
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
    } else if (const int row = help->pos().x() < kLabelWidth ? trackAtY(help->pos().y()) : -1; row >= 0) {
      QToolTip::showText(help->globalPos(), rowToolTip(row), this);
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
