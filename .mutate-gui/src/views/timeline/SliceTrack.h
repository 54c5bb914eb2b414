#pragma once
// A row of slices as a timeline track: lanes by nesting depth, culled to the
// visible range by binary search, drawn from the row's precomputed level of
// detail with what is still narrower than kFoldPx folded into grey blocks;
// instants as ticks on the first lane.
#include "profile/CompactTrace.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineTrack.h"

namespace dfc::views {

class SliceTrack : public TimelineTrack {
 public:
  // Both must outlive the track (TimelineView keeps them in its data).
  SliceTrack(const TimelineRow& row, const profile::CompactTrace& trace) : m_row(row), m_trace(trace) {}

  int height() const override { return m_row.depthCount * kLaneHeight; }
  QString label() const override { return m_row.name; }
  void paint(QPainter& painter, const TrackPaintState& state, int top) const override;
  // The slice under `pos`; one within two pixels counts, so narrow slices stay clickable.
  std::optional<size_t> itemAt(const TimelineViewport& viewport, QPointF pos, int top) const override;
  QRectF itemRect(const TimelineViewport& viewport, size_t index, int top) const override;

 private:
  void paintLane(QPainter& painter, const TrackPaintState& state, size_t lane, double y, const TimelineLod* lod) const;
  void paintInstants(QPainter& painter, const TimelineViewport& viewport, int top) const;
  void paintHitTicks(QPainter& painter, const TrackPaintState& state, const std::vector<TimelineHit>& hits, double y) const;

  const TimelineRow& m_row;
  const profile::CompactTrace& m_trace;
};

}  // namespace dfc::views
