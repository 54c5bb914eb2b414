#pragma once
// A self-painting timeline: time ruler on top, then a stack of tracks (slice
// rows, then counter series; TimelineTrack.h), labels on the left. Tracks cull
// to the visible time range by binary search and fold slices narrower than
// kFoldPx into one block, so a million-slice trace paints as fast as a small
// one. Wheel (or W/S) zooms around the cursor, drag (or A/D) pans,
// Shift+wheel scrolls rows, hover shows a tooltip, click selects, right-drag
// (or Shift+drag) selects a time range and reports what it holds (from the
// trace index: nested slices count once). F zooms to the selected range,
// Backspace goes back, 0 or Home shows everything. The selected range, the
// section of the selected slice and the zoom history live in a
// SelectionState, which the window shares with the graph. A row's header
// menu pins it (Perfetto's pinned tracks): pinned rows sit under the ruler
// in the order pinned and stay there while the other rows scroll.
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "graph/GraphStyle.h"
#include "selection/SelectionState.h"
#include "timeline/SliceInfo.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineTrack.h"

namespace dfc::views {

class TimelineView : public QWidget, public TimelineMetrics {
  Q_OBJECT

 public:
  using PaintStats = TimelinePaintStats;
  struct SliceRef {
    int row = -1;
    size_t index = 0;
  };

  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  // The shared selection (the view makes its own until given one; not owned).
  void setSelectionState(SelectionState* selection);
  SelectionState* selectionState() const { return m_selection; }

  void setData(TimelineData data);  // shows the whole trace
  const TimelineData& data() const { return m_data; }
  // The document's colours (a PEF's hypersections), kept for later traces;
  // null: each trace's own, busiest keys first.
  void setColorIdentity(SharedColorIdentity identity);
  // Colour legend: the trace's keys with their colours, most time first.
  std::vector<LegendEntry> legend() const;
  QString legendNote() const;  // how the colours were chosen (by cost...), "" if not said

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

  // Range selection over rows [firstRow, lastRow] (-1: to the last row); the
  // time range goes into the selection state, the summary comes back from it.
  void selectRange(double startUs, double endUs, int firstRow = 0, int lastRow = -1);
  void clearRange();
  std::optional<RangeSummary> selectedRange() const { return m_range; }
  // The range's summary and its busiest names as HTML, for a details pane.
  static QString rangeSummaryHtml(const RangeSummary& range);

  // Search by slice name (the trace index: case-insensitive substring).
  // findSlices returns how many slices match; showMatch selects the next (or
  // previous) one in time order after the selected slice, or after the left
  // edge of the view, and scrolls it into view. False when there is none.
  size_t findSlices(const QString& text);
  bool showMatch(bool forward = true);
  const profile::TraceSearch& search() const { return m_search; }
  // Search hits (counted calls) that overlap the visible time range; every
  // hit in view is marked when painted (outlined, or a tick where folded).
  size_t matchesInView() const;

  // Cross-links: a clicked section call selects its section in the shared
  // selection (the graph outlines it). Off when the trace is not of the open
  // PEF: its section ids would name another plan's sections.
  void setLinked(bool linked) { m_linked = linked; }
  bool isLinked() const { return m_linked; }
  std::optional<SliceRef> sliceOfEvent(uint32_t event) const;

  // Pinning, by track (slice rows first, then counters); a new trace unpins all.
  void setPinned(int row, bool pinned);
  bool isPinned(int row) const;
  const std::vector<int>& pinnedRows() const { return m_pinned; }
  int rowTop(int row) const;  // widget y of a track, pinned or scrolled
  // A row header's tooltip: the whole name (headers elide it) and how to (un)pin.
  QString rowToolTip(int row) const;
  void scrollRowsBy(int dy);  // as Shift+wheel does

  const PaintStats& lastPaintStats() const { return m_stats; }
  QSize sizeHint() const override { return {800, 400}; }

 signals:
  void sliceSelected(const dfc::views::SliceInfo& slice);
  void selectionCleared();
  void rangeSelected(const dfc::views::RangeSummary& range);
  void rangeCleared();
  void dataChanged();  // setData was called
  void legendChanged();
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
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool event(QEvent* event) override;

 private:
  TimelineViewport viewport() const;
  double plotWidth() const;
  double pxPerUs() const;
  double timeAt(double x) const;
  double xAt(double us) const;
  int scrollTop() const;  // where the scrolled rows start, under the pinned band
  void layoutTracks();
  void paintTracks(QPainter& painter, bool pinned);
  void zoomAround(double x, double factor);
  void panPixels(double dx, double dy);
  void clampView();
  void paintRuler(QPainter& painter);
  void paintRange(QPainter& painter);
  int rowAtY(int y) const;    // slice row at y, -1 if none
  int trackAtY(int y) const;  // any track at y, -1 if none
  void notifyVisibleRange();
  void showRange(std::optional<TimeRange> range);
  void showZoom(std::optional<TimeRange> range);
  void publishSection(const SliceRef& ref);
  void readSectionTable();
  void addRelatives(SliceInfo& info, uint32_t event) const;

  TimelineData m_data;
  SharedColorIdentity m_identity;
  std::vector<std::unique_ptr<TimelineTrack>> m_tracks;  // one per data row, then one per counter
  std::vector<int> m_trackOffsets;                       // y of each track in its band (pinned or scrolled)
  std::vector<int> m_pinned;                             // pinned tracks, in the order pinned
  int m_pinnedHeight = 0;                                // of the pinned band
  int m_scrolledHeight = 0;                              // of the other rows together
  SelectionState* m_selection = nullptr;
  std::vector<int> m_rowOfThread;  // the data row showing each trace row, -1 if none
  profile::TraceSearch m_search;
  std::vector<bool> m_matchNames;  // per string id: a name the search matches; empty: no search
  std::vector<std::vector<std::vector<TimelineHit>>> m_rowHits;  // per row, per lane: the search's hits
  bool m_linked = true;
  std::map<std::string, QList<QPair<QString, QString>>> m_sectionFigures;  // the trace's `sections` table, by id
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
