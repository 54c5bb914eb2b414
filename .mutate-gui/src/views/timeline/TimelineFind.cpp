// TimelineView's slice search: the trace index finds and orders the matches,
// the view maps each to its row and brings it into sight.
#include <algorithm>

#include "timeline/TimelineView.h"

namespace dfc::views {

size_t TimelineView::findSlices(const QString& text) {
  m_search = m_data.index ? m_data.index->search(text.trimmed().toStdString()) : profile::TraceSearch{};
  m_matchNames.clear();
  m_rowHits.clear();
  if (!m_search.names.empty() && m_data.trace) {
    m_matchNames.assign(m_data.trace->strings.size(), false);
    for (const profile::NameStats& s : m_search.names) m_matchNames[s.name] = true;
    // Each lane's hits in start order, so a paint finds those in view by binary search.
    m_rowHits.resize(m_data.rows.size());
    for (size_t r = 0; r < m_data.rows.size(); ++r) {
      const TimelineRow& row = m_data.rows[r];
      m_rowHits[r].resize(row.laneSlices.size());
      for (size_t lane = 0; lane < row.laneSlices.size(); ++lane)
        for (uint32_t i : row.laneSlices[lane])
          if (m_matchNames[m_data.trace->events[row.events[i]].name])
            m_rowHits[r][lane].push_back({row.starts[i], row.starts[i] + row.durations[i]});
    }
  }
  update();  // every hit in view gets its mark
  return m_search.count;
}

size_t TimelineView::matchesInView() const {
  if (!m_data.index || m_search.names.empty()) return 0;
  return m_data.index->countMatches(m_search, m_viewStart, m_viewStart + m_viewDuration);
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
