#pragma once
// What the user has picked, shared by the screens that show one run (hotspot's
// FilterAndZoomStack idea): a time range, a section with its hypersection,
// and a zoom history. The timeline and the graph pane both read and write it,
// so neither needs to know the other; each change is announced once.
// Hypersections are named, not numbered, here: their unique name is what the
// plan and the trace (the `hypersection` arg) have in common.
#include <QObject>
#include <QString>
#include <QVector>
#include <optional>

namespace dfc::views {

struct TimeRange {
  double startUs = 0;
  double endUs = 0;
  double durationUs() const { return endUs - startUs; }
  bool operator==(const TimeRange& other) const = default;
};

class SelectionState : public QObject {
  Q_OBJECT

 public:
  explicit SelectionState(QObject* parent = nullptr);

  std::optional<TimeRange> timeRange() const { return m_range; }
  void setTimeRange(TimeRange range);  // start and end in either order
  void clearTimeRange();

  int section() const { return m_section; }  // -1: none
  QString hypersection() const { return m_hypersection; }
  void selectSection(int section, const QString& hypersection = {});
  void clearSection() { selectSection(-1); }

  // Zoom history: zoomIn shows a range and remembers it, zoomOut goes back to
  // the one before (the whole trace at the bottom), resetZoom forgets them all.
  std::optional<TimeRange> zoom() const;  // nullopt: the whole trace
  int zoomDepth() const { return static_cast<int>(m_zoomStack.size()); }
  void zoomIn(TimeRange range);
  void zoomOut();
  void resetZoom();

 signals:
  void timeRangeChanged(std::optional<dfc::views::TimeRange> range);
  void sectionChanged(int section, const QString& hypersection);
  void zoomChanged(std::optional<dfc::views::TimeRange> range);

 private:
  std::optional<TimeRange> m_range;
  int m_section = -1;
  QString m_hypersection;
  QVector<TimeRange> m_zoomStack;
};

}  // namespace dfc::views
