#pragma once
// A self-painting timeline: time ruler on top, row labels on the left, slices
// as coloured boxes by nesting depth. Painting culls to the visible time range
// by binary search and folds slices narrower than kFoldPx into one block, so
// a million-slice trace paints as fast as a small one. Wheel (or W/S) zooms
// around the cursor, drag (or A/D) pans, Shift+wheel scrolls rows, hover
// shows a tooltip, click selects, right-drag (or Shift+drag) selects a time
// range and reports its slice count and summed duration. Counter tracks (C
// events) are drawn as line charts below the slice rows, instants as ticks.
#include <QWidget>
#include <optional>

#include "timeline/SliceInfo.h"
#include "timeline/TimelineData.h"

namespace dfc::views {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  struct PaintStats {
    size_t visited = 0;   // slices looked at (inside the culled range)
    size_t drawn = 0;     // boxes drawn, one per slice wide enough
    size_t folded = 0;    // narrow slices folded into merged blocks
    size_t blocks = 0;    // merged blocks drawn
  };
  struct SliceRef {
    int row = -1;
    size_t index = 0;
  };

  static constexpr int kLabelWidth = 180;
  static constexpr int kRulerHeight = 26;
  static constexpr int kLaneHeight = 18;
  static constexpr int kRowGap = 8;
  static constexpr int kCounterHeight = 40;
  static constexpr double kFoldPx = 2.0;

  explicit TimelineView(QWidget* parent = nullptr);

  void setData(TimelineData data);  // shows the whole trace
  const TimelineData& data() const { return m_data; }

  void setVisibleRange(double startUs, double durationUs);
  void zoomToFit();
  double visibleStart() const { return m_viewStart; }
  double visibleDuration() const { return m_viewDuration; }

  // Geometry helpers (widget coordinates), used by hit testing and tests.
  QRectF sliceRect(int row, size_t index) const;
  std::optional<SliceRef> sliceAt(QPoint pos) const;
  SliceInfo sliceInfo(const SliceRef& ref) const;
  std::optional<SliceRef> selectedSlice() const { return m_selected; }
  void selectSlice(const SliceRef& ref);

  // Range selection over rows [firstRow, lastRow] (-1: to the last row).
  void selectRange(double startUs, double endUs, int firstRow = 0, int lastRow = -1);
  void clearRange();
  std::optional<RangeSummary> selectedRange() const { return m_range; }

  const PaintStats& lastPaintStats() const { return m_stats; }
  QSize sizeHint() const override { return {800, 400}; }

 signals:
  void sliceSelected(const dfc::views::SliceInfo& slice);
  void selectionCleared();
  void rangeSelected(const dfc::views::RangeSummary& range);
  void rangeCleared();
  // Emitted whenever zoom or pan changes what is visible (CompareView syncs on it).
  void visibleRangeChanged(double startUs, double durationUs);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

 private:
  double plotWidth() const;
  double pxPerUs() const;
  double timeAt(double x) const;
  double xAt(double us) const;
  int rowTop(int row) const;  // widget y of a row's first lane
  int contentHeight() const;
  void zoomAround(double x, double factor);
  void panPixels(double dx, double dy);
  void clampView();
  void paintRow(QPainter& painter, int rowIndex, int top);
  void paintRuler(QPainter& painter);
  void paintInstants(QPainter& painter, const TimelineRow& row, int top);
  void paintCounter(QPainter& painter, const TimelineCounter& counter, int top);
  void paintRange(QPainter& painter);
  int rowAtY(int y) const;  // -1 if none
  int counterTop(size_t counter) const;
  void notifyVisibleRange();

  TimelineData m_data;
  std::vector<int> m_rowOffsets;  // content y of each row
  double m_viewStart = 0;
  double m_viewDuration = 1;
  int m_scrollY = 0;
  std::optional<SliceRef> m_selected;
  std::optional<SliceRef> m_hovered;
  QPoint m_pressPos;
  double m_pressViewStart = 0;
  int m_pressScrollY = 0;
  bool m_dragging = false;
  bool m_pressed = false;
  bool m_rangeDragging = false;
  int m_rangeFirstRow = 0;
  int m_rangeLastRow = -1;
  std::optional<RangeSummary> m_range;
  double m_notifiedStart = 0;
  double m_notifiedDuration = 0;
  PaintStats m_stats;
};

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::TimelineView::SliceRef)
Q_DECLARE_METATYPE(dfc::views::RangeSummary)
