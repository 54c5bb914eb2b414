#pragma once
// What the timeline stacks, one track at a time (tracy's TimelineItem idea):
// a track knows its height, paints itself over the visible time range and
// says which of its items lies under a point. Slice rows and counter series
// are tracks; TimelineView owns the ruler, scrolling, selection and input.
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

class QPainter;

namespace dfc::views {

struct TimelineMetrics {
  static constexpr int kLabelWidth = 180;
  static constexpr int kRulerHeight = 26;
  static constexpr int kLaneHeight = 18;
  static constexpr int kRowGap = 8;
  static constexpr int kCounterHeight = 40;
  static constexpr double kFoldPx = 2.0;
};

// Trace time <-> widget x over the visible range, and where the plot is.
struct TimelineViewport {
  double startUs = 0;
  double durationUs = 1;
  int width = 0;  // the widget's
  int height = 0;
  double plotWidth() const { return std::max(1, width - TimelineMetrics::kLabelWidth); }
  double pxPerUs() const { return plotWidth() / durationUs; }
  double endUs() const { return startUs + durationUs; }
  double xAt(double us) const { return TimelineMetrics::kLabelWidth + (us - startUs) * pxPerUs(); }
  double timeAt(double x) const { return startUs + (x - TimelineMetrics::kLabelWidth) / pxPerUs(); }
  QRect plotRect() const {
    return {TimelineMetrics::kLabelWidth, TimelineMetrics::kRulerHeight, width - TimelineMetrics::kLabelWidth,
            height - TimelineMetrics::kRulerHeight};
  }
};

struct TimelinePaintStats {
  size_t visited = 0;  // slices looked at (inside the culled range)
  size_t drawn = 0;    // boxes drawn, one per slice wide enough
  size_t folded = 0;   // narrow slices folded into merged blocks
  size_t blocks = 0;   // merged blocks drawn
  size_t marked = 0;   // search hits marked (an outlined box, or a tick on a fold)
};

// A search hit on one lane of a row: its span (hits sorted by start).
struct TimelineHit {
  double start = 0;
  double end = 0;
};

// One paint of one track: the view, what of it is hovered or selected, and
// the counts to add to.
struct TrackPaintState {
  const TimelineViewport& viewport;
  TimelinePaintStats& stats;
  std::optional<size_t> hovered;
  std::optional<size_t> selected;
  const std::vector<bool>* matches = nullptr;  // per string id: a name the search matches (null: no search)
  const std::vector<std::vector<TimelineHit>>* hits = nullptr;  // per lane of this row: the search's hits
};

class TimelineTrack : public TimelineMetrics {
 public:
  virtual ~TimelineTrack() = default;
  virtual int height() const = 0;  // px, without the gap below
  virtual QString label() const = 0;
  // Paints the label column and the plot between `top` and top + height().
  virtual void paint(QPainter& painter, const TrackPaintState& state, int top) const = 0;
  // The item under `pos` (widget coordinates, the track drawn at `top`); none by default.
  virtual std::optional<size_t> itemAt(const TimelineViewport& viewport, QPointF pos, int top) const;
  // Where item `index` is drawn; empty for a track without items.
  virtual QRectF itemRect(const TimelineViewport& viewport, size_t index, int top) const;

 protected:
  // The separator below the track and its label; every track has them.
  void paintFrame(QPainter& painter, const TimelineViewport& viewport, int top) const;
};

}  // namespace dfc::views
