#pragma once
// The Runs screen's chart of `dfc measure-performance` runs over time:
// throughput (samples/s, left axis) and step latency (median and p99 in ms,
// right axis), one point per run at the time it started.
#include <QChartView>
#include <QDateTime>
#include <vector>

class QLineSeries;

namespace dfc::views {

struct PerformancePoint {
  QDateTime startedAt;
  double samplesPerSecond = 0;
  double medianMs = 0;
  double p99Ms = 0;
};

class PerformanceChart : public QChartView {
  Q_OBJECT

 public:
  explicit PerformanceChart(QWidget* parent = nullptr);
  // Redraws with these runs (any order); none: a hint how to make some.
  void setPoints(std::vector<PerformancePoint> points);

  QLineSeries* throughputSeries() const { return m_throughput; }
  QLineSeries* medianSeries() const { return m_median; }
  QLineSeries* p99Series() const { return m_p99; }

 private:
  QLineSeries* m_throughput = nullptr;
  QLineSeries* m_median = nullptr;
  QLineSeries* m_p99 = nullptr;
};

}  // namespace dfc::views
