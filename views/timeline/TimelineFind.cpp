// TimelineView's slice search: the trace index finds and orders the matches,
// the view maps each to its row and brings it into sight.
#include <algorithm>

#include "timeline/TimelineView.h"

namespace dfc::views {

size_t TimelineView::findSlices(const QString& text) {
  m_search = m_data.index ? m_data.index->search(text.trimmed().toStdString()) : profile::TraceSearch{};
  return m_search.count;
}

std::optional<TimelineView::SliceRef> TimelineView::sliceOfEvent(uint32_t event) const {
  if (!m_data.trace || event >= m_data.trace->events.size()) return std::nullopt;
  const uint32_t thread = m_data.trace->events[event].thread;
  const int row = thread < m_rowOfThread.size() ? m_rowOfThread[thread] : -1;
  if (row < 0) return std::nullopt;
  const auto& events = m_data.rows[static_cast<size_t>(row)].events;  // ascending
  const auto it = std::lower_bound(events.begin(), events.end(), event);
  if (it == events.end() || *it != event) return std::nullopt;
  return SliceRef{row, static_cast<size_t>(it - events.begin())};
}

bool TimelineView::showMatch(bool forward) {
  if (!m_data.index || m_search.names.empty()) return false;
  const profile::TraceIndex& index = *m_data.index;
  // From the selected slice, else from the view's left (or right) edge.
  profile::TimeCursor from{forward ? m_viewStart : m_viewStart + m_viewDuration};
  if (m_selected) from = index.cursorAt(m_data.rows[static_cast<size_t>(m_selected->row)].events[m_selected->index]);
  const auto event = forward ? index.nextMatch(m_search, from) : index.prevMatch(m_search, from);
  const auto ref = event ? sliceOfEvent(*event) : std::nullopt;
  if (!ref) return false;
  const TimelineRow& row = m_data.rows[static_cast<size_t>(ref->row)];
  const double start = row.starts[ref->index], duration = row.durations[ref->index];
  // Keep the zoom unless the slice would not fit; centre it.
  if (duration > m_viewDuration * 0.8) m_viewDuration = duration / 0.8;
  m_viewStart = start + duration / 2 - m_viewDuration / 2;
  const int top = rowTop(ref->row) + row.depths[ref->index] * kLaneHeight;
  if (!isPinned(ref->row) && (top < scrollTop() || top + kLaneHeight > height()))
    m_scrollY += top - (scrollTop() + height()) / 2;
  clampView();
  notifyVisibleRange();
  selectSlice(*ref);
  return true;
}

}  // namespace dfc::views
