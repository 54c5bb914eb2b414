#pragma once
// The Runs screen's chart of `dfc measure-performance` runs over time, one
// colour per PEF: throughput (samples/s, solid, left axis) and step latency
// (median dashed, p99 dotted; ms, right axis), one point per run at the time
// it started. Runs of different PEFs are never joined by a line.
#include <QChartView>
#include <QDateTime>
#include <map>
#include <vector>

class QLineSeries;

namespace dfc::views {

struct PerformancePoint {
  QString pef;  // the PEF's name: one set of series each
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

  // The series of one PEF (nullptr if it has no run on the chart).
  QLineSeries* throughputSeries(const QString& pef) const;
  QLineSeries* medianSeries(const QString& pef) const;
  QLineSeries* p99Series(const QString& pef) const;
  int pefCount() const { return static_cast<int>(m_series.size()); }

 private:
  struct PefSeries {
    QLineSeries* throughput = nullptr;
    QLineSeries* median = nullptr;
    QLineSeries* p99 = nullptr;
  };
  std::map<QString, PefSeries> m_series;
};

}  // namespace dfc::views
