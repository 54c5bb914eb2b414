#include "selection/SelectionState.h"

#include <algorithm>

namespace dfc::views {

SelectionState::SelectionState(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::optional<dfc::views::TimeRange>>();
}

void SelectionState::setTimeRange(TimeRange range) {
  if (range.endUs < range.startUs) std::swap(range.startUs, range.endUs);
  if (m_range == range) return;
  m_range = range;
  emit timeRangeChanged(m_range);
}

void SelectionState::clearTimeRange() {
  if (!m_range) return;
  m_range.reset();
  emit timeRangeChanged(m_range);
}

void SelectionState::selectSection(int section, const QString& hypersection) {
  section = std::max(section, -1);
  if (section == m_section && hypersection == m_hypersection) return;
  m_section = section;
  m_hypersection = hypersection;
  emit sectionChanged(m_section, m_hypersection);
}

std::optional<TimeRange> SelectionState::zoom() const {
  if (m_zoomStack.isEmpty()) return std::nullopt;
  return m_zoomStack.last();
}

void SelectionState::zoomIn(TimeRange range) {
  if (range.endUs < range.startUs) std::swap(range.startUs, range.endUs);
  m_zoomStack.push_back(range);
  emit zoomChanged(range);
}

void SelectionState::zoomOut() {
  if (m_zoomStack.isEmpty()) return;
  m_zoomStack.pop_back();
  emit zoomChanged(zoom());
}

void SelectionState::resetZoom() {
  m_zoomStack.clear();
  emit zoomChanged(std::nullopt);
}

}  // namespace dfc::views
