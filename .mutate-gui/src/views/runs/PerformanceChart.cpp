#include "runs/PerformanceChart.h"

#include <QChart>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "style/Palette.h"

namespace dfc::views {
namespace {

QLineSeries* newSeries(const QString& name, const QColor& color, Qt::PenStyle style) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->setPointsVisible(true);
  QPen pen(color);
  pen.setWidth(2);
  pen.setStyle(style);
  s->setPen(pen);
  s->setColor(color);
  return s;
}

// A value axis from 0 to a little above `max`, on round numbers, its labels
// with as many decimals as its ticks need to differ ("0 0 1 1 1" was 0..1 in
// steps of 0.25 printed with none; an empty chart's axis reads 0.00 ... 1.00).
QValueAxis* valueAxis(const QString& title, double max) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setRange(0, max > 0 ? max * 1.1 : 1.0);
  axis->applyNiceNumbers();
  const double step = (axis->max() - axis->min()) / std::max(1, axis->tickCount() - 1);
  int decimals = 0;
  while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6)
    ++decimals;
  axis->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
  return axis;
}

// The time axis over the runs, with a margin so the first and last points are not on its ends.
QDateTimeAxis* timeAxis(const std::vector<PerformancePoint>& sorted) {
  auto* axis = new QDateTimeAxis;
  axis->setTitleText(PerformanceChart::tr("started (UTC)"));
  const QDateTime first = sorted.empty() ? QDateTime::currentDateTimeUtc() : sorted.front().startedAt;
  const QDateTime last = sorted.empty() ? first : sorted.back().startedAt;
  const qint64 span = first.msecsTo(last);
  const qint64 margin = std::max<qint64>(span / 20, 2000);
  axis->setRange(first.addMSecs(-margin), last.addMSecs(margin));
  axis->setFormat(span < 86400000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("MM-dd HH:mm"));
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
  chart->setLocalizeNumbers(true);  // decimal comma where the locale has one
  chart->legend()->setAlignment(Qt::AlignBottom);
  m_series.clear();
  for (const PerformancePoint& p : points) m_series.try_emplace(p.pef);
  int colorIndex = 0;
  for (auto& [pef, s] : m_series) {
    // Darkened: thin lines on white need more contrast than the palette's fills.
    const QColor color = categoricalColor(colorIndex++ % categoricalCount()).darker(140);
    s.throughput = newSeries(tr("%1 samples/s").arg(pef), color, Qt::SolidLine);
    s.median = newSeries(tr("%1 median ms").arg(pef), color, Qt::DashLine);
    s.p99 = newSeries(tr("%1 p99 ms").arg(pef), color, Qt::DotLine);
  }
  double maxRate = 0, maxMs = 0;
  for (const PerformancePoint& p : points) {
    const PefSeries& s = m_series.at(p.pef);
    const auto x = static_cast<qreal>(p.startedAt.toMSecsSinceEpoch());
    s.throughput->append(x, p.samplesPerSecond);
    s.median->append(x, p.medianMs);
    s.p99->append(x, p.p99Ms);
    maxRate = std::max(maxRate, p.samplesPerSecond);
    maxMs = std::max({maxMs, p.medianMs, p.p99Ms});
  }
  chart->setTitle(points.empty()
                      ? tr("No measure-performance runs here yet: dfc measure-performance --pef P.pef")
                      : tr("measure-performance runs over time (%n run(s))", nullptr, static_cast<int>(points.size())));
  QDateTimeAxis* time = timeAxis(points);
  QValueAxis* rate = valueAxis(tr("samples/s"), maxRate);
  QValueAxis* ms = valueAxis(tr("ms per step"), maxMs);
  chart->addAxis(time, Qt::AlignBottom);
  chart->addAxis(rate, Qt::AlignLeft);
  chart->addAxis(ms, Qt::AlignRight);
  for (auto& [pef, s] : m_series) {
    for (QLineSeries* series : {s.throughput, s.median, s.p99}) {
      chart->addSeries(series);
      series->attachAxis(time);
      series->attachAxis(series == s.throughput ? rate : ms);
    }
  }
  QChart* old = this->chart();
  setChart(chart);
  delete old;  // setChart does not delete the previous chart
}

QLineSeries* PerformanceChart::throughputSeries(const QString& pef) const {
  auto it = m_series.find(pef);
  return it == m_series.end() ? nullptr : it->second.throughput;
}

QLineSeries* PerformanceChart::medianSeries(const QString& pef) const {
  auto it = m_series.find(pef);
  return it == m_series.end() ? nullptr : it->second.median;
}

QLineSeries* PerformanceChart::p99Series(const QString& pef) const {
  auto it = m_series.find(pef);
  return it == m_series.end() ? nullptr : it->second.p99;
}

}  // namespace dfc::views
