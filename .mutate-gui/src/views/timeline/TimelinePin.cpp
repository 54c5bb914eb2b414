// TimelineView's row layout: pinned rows in a band under the ruler (in the
// order pinned, never scrolled), the other rows below it in trace order,
// scrolled. Pinning comes from a row header's context menu.
#include <QContextMenuEvent>
#include <QMenu>
#include <algorithm>

#include "timeline/TimelineView.h"

namespace dfc::views {

bool TimelineView::isPinned(int row) const { return std::find(m_pinned.begin(), m_pinned.end(), row) != m_pinned.end(); }

void TimelineView::setPinned(int row, bool pinned) {
  if (row < 0 || static_cast<size_t>(row) >= m_tracks.size() || isPinned(row) == pinned) return;
  if (pinned)
    m_pinned.push_back(row);
  else
    m_pinned.erase(std::find(m_pinned.begin(), m_pinned.end(), row));
  layoutTracks();
  clampView();
  update();
}

void TimelineView::layoutTracks() {
  m_trackOffsets.assign(m_tracks.size(), 0);
  m_pinnedHeight = 0;
  for (int t : m_pinned) {
    m_trackOffsets[static_cast<size_t>(t)] = m_pinnedHeight;
    m_pinnedHeight += m_tracks[static_cast<size_t>(t)]->height() + kRowGap;
  }
  m_scrolledHeight = 0;
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    if (isPinned(static_cast<int>(t))) continue;
    m_trackOffsets[t] = m_scrolledHeight;
    m_scrolledHeight += m_tracks[t]->height() + kRowGap;
  }
}

int TimelineView::scrollTop() const { return kRulerHeight + 4 + m_pinnedHeight; }

int TimelineView::rowTop(int row) const {
  const int offset = m_trackOffsets[static_cast<size_t>(row)];
  return isPinned(row) ? kRulerHeight + 4 + offset : scrollTop() + offset - m_scrollY;
}

void TimelineView::scrollRowsBy(int dy) { panPixels(0, -dy); }

int TimelineView::trackAtY(int y) const {
  // Scrolled rows hide under the pinned band: there, only pinned rows count.
  const bool inBand = y < scrollTop();
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    if (isPinned(static_cast<int>(t)) != inBand) continue;
    const int top = rowTop(static_cast<int>(t));
    if (y >= top && y < top + m_tracks[t]->height()) return static_cast<int>(t);
  }
  return -1;
}

int TimelineView::rowAtY(int y) const {
  const int track = trackAtY(y);
  return track >= 0 && static_cast<size_t>(track) < m_data.rows.size() ? track : -1;
}

QString TimelineView::rowToolTip(int row) const {
  if (row < 0 || static_cast<size_t>(row) >= m_tracks.size()) return {};
  return QStringLiteral("<b>%1</b><br>").arg(m_tracks[static_cast<size_t>(row)]->label().toHtmlEscaped()) +
         (isPinned(row) ? tr("Pinned to the top; right-click to unpin") : tr("Right-click to pin this row to the top"));
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  const int track = event->pos().x() < kLabelWidth && event->pos().y() >= kRulerHeight ? trackAtY(event->pos().y()) : -1;
  if (track < 0) return event->ignore();
  auto* menu = new QMenu(this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  const bool pinned = isPinned(track);
  menu->addAction(pinned ? tr("Unpin row") : tr("Pin row to top"), this,
                  [this, track, pinned] { setPinned(track, !pinned); });
  menu->popup(event->globalPos());
}

}  // namespace dfc::views
