#include "runs/PerformanceChart.h"

#include <QChart>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

namespace dfc::views {
namespace {

QLineSeries* newSeries(const QString& name, Qt::PenStyle style) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->setPointsVisible(true);
  QPen pen = s->pen();
  pen.setWidth(2);
  pen.setStyle(style);
  s->setPen(pen);
  return s;
}

// A value axis from 0 to a little above `max`.
QValueAxis* valueAxis(const QString& title, double max) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setRange(0, max > 0 ? max * 1.1 : 1.0);
  axis->setLabelFormat(QStringLiteral("%.4g"));
  return axis;
}

}  // namespace

PerformanceChart::PerformanceChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(200);
  setPoints({});
}

void PerformanceChart::setPoints(std::vector<PerformancePoint> points) {
  std::sort(points.begin(), points.end(),
            [](const PerformancePoint& a, const PerformancePoint& b) { return a.startedAt < b.startedAt; });
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  m_throughput = newSeries(tr("throughput (samples/s)"), Qt::SolidLine);
  m_median = newSeries(tr("step latency, median (ms)"), Qt::DashLine);
  m_p99 = newSeries(tr("step latency, p99 (ms)"), Qt::DotLine);
  double maxRate = 0, maxMs = 0;
  for (const PerformancePoint& p : points) {
    const auto x = static_cast<qreal>(p.startedAt.toMSecsSinceEpoch());
    m_throughput->append(x, p.samplesPerSecond);
    m_median->append(x, p.medianMs);
    m_p99->append(x, p.p99Ms);
    maxRate = std::max(maxRate, p.samplesPerSecond);
    maxMs = std::max({maxMs, p.medianMs, p.p99Ms});
  }
  chart->setTitle(points.empty() ? tr("No measure-performance runs here yet: dfc measure-performance --pef P.pef")
                                 : tr("measure-performance runs over time (%n run(s))", nullptr,
                                      static_cast<int>(points.size())));
  for (QLineSeries* s : {m_throughput, m_median, m_p99}) chart->addSeries(s);
  auto* time = new QDateTimeAxis;
  time->setTitleText(tr("started (UTC)"));
  time->setFormat(QStringLiteral("MM-dd HH:mm:ss"));
  const QDateTime first = points.empty() ? QDateTime::currentDateTimeUtc() : points.front().startedAt;
  const QDateTime last = points.empty() ? first : points.back().startedAt;
  time->setRange(first.addSecs(-30), last.addSecs(30));  // one run still gets a visible span
  chart->addAxis(time, Qt::AlignBottom);
  QValueAxis* rate = valueAxis(tr("samples/s"), maxRate);
  QValueAxis* ms = valueAxis(tr("ms per step"), maxMs);
  chart->addAxis(rate, Qt::AlignLeft);
  chart->addAxis(ms, Qt::AlignRight);
  for (QLineSeries* s : {m_throughput, m_median, m_p99}) s->attachAxis(time);
  m_throughput->attachAxis(rate);
  m_median->attachAxis(ms);
  m_p99->attachAxis(ms);
  QChart* old = this->chart();
  setChart(chart);
  delete old;  // setChart does not delete the previous chart
}

}  // namespace dfc::views
