#pragma once
// A counter series (C events: loss, memory) as a timeline track: a stepped
// line over its own strip, one column of samples per pixel, its value range
// under the name.
#include "timeline/TimelineData.h"
#include "timeline/TimelineTrack.h"

namespace dfc::views {

class CounterTrack : public TimelineTrack {
 public:
  explicit CounterTrack(const TimelineCounter& counter) : m_counter(counter) {}  // must outlive the track

  int height() const override { return kCounterHeight; }
  QString label() const override { return m_counter.name; }
  void paint(QPainter& painter, const TrackPaintState& state, int top) const override;

 private:
  const TimelineCounter& m_counter;
};

}  // namespace dfc::views
