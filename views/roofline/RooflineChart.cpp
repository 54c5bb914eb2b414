#include "roofline/RooflineChart.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "style/Units.h"

namespace dfc::views {
namespace {

constexpr double kLeft = 104, kRight = 20, kTop = 30, kBottom = 44;
constexpr double kHitPx = 7;
const QColor kChipRoof(0x33, 0x33, 0x33);
const QColor kHostRoof(0xdd, 0x84, 0x52);
const QColor kEstimated(0x4c, 0x72, 0xb0);
const QColor kMeasured(0xdd, 0x84, 0x52);
const QColor kSelected(0xe8, 0x59, 0x0c);

double decadeBelow(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decadeAbove(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

QString flopsText(double flops) { return formatFlop(flops) + QStringLiteral("/s"); }

}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(300);
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void RooflineChart::setData(const RooflineViewData* data) {
  m_data = data && !data->empty() ? data : nullptr;
  m_selected = -1;
  computeRange();
  update();
}

void RooflineChart::setSelectedSection(int section) {
  m_selected = section;
  update();
}

// Whole decades around every point and roof, the ridges included.
void RooflineChart::computeRange() {
  m_range = {};
  if (!m_data) return;
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  auto take = [&](double x, double y) {
    if (x > 0) x0 = std::min(x0, x), x1 = std::max(x1, x);
    if (y > 0) y0 = std::min(y0, y), y1 = std::max(y1, y);
  };
  const auto& r = m_data->roofline;
  take(r.ridgeIntensity, r.roofs.front().value * 1e12);
  for (const auto& p : r.points) take(p.intensity, p.estimatedTflops * 1e12);
  if (m_data->host) {
    take(m_data->host->gflops / std::max(m_data->host->gbps, 1e-9), m_data->host->gflops * 1e9);
    for (const auto& h : m_data->hostPoints) take(h.intensity, h.gflops * 1e9);
  }
  if (x1 <= 0 || y1 <= 0) return;
  m_range = {decadeBelow(x0), std::max(decadeAbove(x1 * 1.01), decadeBelow(x0) * 100), decadeBelow(y0),
             std::max(decadeAbove(y1 * 1.01), decadeBelow(y0) * 100)};
}

QRectF RooflineChart::plotRect(const QRectF& area) const { return area.adjusted(kLeft, kTop, -kRight, -kBottom); }

QPointF RooflineChart::toPixel(const QRectF& area, double intensity, double flops) const {
  const QRectF plot = plotRect(area);
  const double fx = std::log10(intensity / m_range.x0) / std::log10(m_range.x1 / m_range.x0);
  const double fy = std::log10(flops / m_range.y0) / std::log10(m_range.y1 / m_range.y0);
  return {plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height()};
}

void RooflineChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintChart(p, rect());
}

void RooflineChart::paintChart(QPainter& p, const QRectF& area) const {
  p.save();
  p.setPen(palette().color(QPalette::Text));
  if (!m_data) {
    p.drawText(area, Qt::AlignCenter, tr("No roofline: open a PEF."));
    p.restore();
    return;
  }
  const QRectF plot = plotRect(area);
  paintGrid(p, plot);
  p.setClipRect(plot.adjusted(-1, -1, 1, 1));
  paintRoofs(p, plot);
  paintPoints(p, plot);
  p.setClipping(false);
  paintLegend(p, plot);
  p.restore();
}

void RooflineChart::paintGrid(QPainter& p, const QRectF& plot) const {
  const QColor text = palette().color(QPalette::Text);
  const QRectF area = plot.adjusted(-kLeft, -kTop, kRight, kBottom);
  for (double x = m_range.x0; x <= m_range.x1 * 1.001; x *= 10) {
    const double px = toPixel(area, x, m_range.y0).x();
    p.setPen(QColor(0xe4, 0xe4, 0xe4));
    p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
    p.setPen(text);
    p.drawText(QRectF(px - 40, plot.bottom() + 2, 80, 16), Qt::AlignCenter,
               QLocale().toString(x, x >= 1 ? 'f' : 'g', x >= 1 ? 0 : 3));
  }
  for (double y = m_range.y0; y <= m_range.y1 * 1.001; y *= 10) {
    const double py = toPixel(area, m_range.x0, y).y();
    p.setPen(QColor(0xe4, 0xe4, 0xe4));
    p.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
    p.setPen(text);
    p.drawText(QRectF(0, py - 9, kLeft - 6, 18), Qt::AlignRight | Qt::AlignVCenter, flopsText(y));
  }
  p.setPen(text);
  p.drawRect(plot);
  p.drawText(QRectF(plot.left(), plot.bottom() + 20, plot.width(), 18), Qt::AlignCenter,
             tr("arithmetic intensity (FLOP per off-chip byte, log)"));
}

// min(peak, intensity x bandwidth) across the plot: the sloped part, then the flat roof.
void RooflineChart::paintRoof(QPainter& p, const QRectF& plot, double peakFlops, double bytesPerSecond,
                              const QString& label) const {
  const QRectF area = plot.adjusted(-kLeft, -kTop, kRight, kBottom);
  const double ridge = peakFlops / bytesPerSecond;
  const double x0 = std::max(m_range.x0, m_range.y0 / bytesPerSecond);
  QPolygonF line;
  if (x0 < ridge) line << toPixel(area, x0, x0 * bytesPerSecond);
  line << toPixel(area, std::clamp(ridge, m_range.x0, m_range.x1), std::min(peakFlops, m_range.x1 * bytesPerSecond));
  line << toPixel(area, m_range.x1, std::min(peakFlops, m_range.x1 * bytesPerSecond));
  p.drawPolyline(line);
  const QPointF at = line.size() > 2 ? (line[0] + line[1]) / 2 : line.front();
  p.save();
  p.translate(at);
  if (line.size() > 2) p.rotate(std::atan2(line[1].y() - line[0].y(), line[1].x() - line[0].x()) * 180 / M_PI);
  p.drawText(QPointF(4, -4), label);
  p.restore();
}

void RooflineChart::paintRoofs(QPainter& p, const QRectF& plot) const {
  const auto& roofs = m_data->roofline.roofs;
  const double peak = roofs.front().value * 1e12;
  p.setPen(QPen(kChipRoof, 1.8));
  const QRectF area = plot.adjusted(-kLeft, -kTop, kRight, kBottom);
  const QPointF roofAt = toPixel(area, m_range.x1, peak);
  p.drawText(QRectF(plot.left(), roofAt.y() - 18, plot.width() - 6, 16), Qt::AlignRight,
             tr("%1 compute %2").arg(m_data->arch, flopsText(peak)));
  for (size_t i = 1; i < roofs.size(); ++i) {
    p.setPen(QPen(kChipRoof, i == 1 ? 1.8 : 1.0, i == 1 ? Qt::SolidLine : Qt::DashDotLine));
    paintRoof(p, plot, peak, roofs[i].value * 1e9,
              tr("%1 %2 GB/s")
                  .arg(QString::fromStdString(roofs[i].name).toUpper(), QLocale().toString(roofs[i].value, 'g', 4)));
  }
  if (!m_data->host) return;
  const analysis::HostPeaks& h = *m_data->host;
  p.setPen(QPen(kHostRoof, 1.6, Qt::DashLine));
  paintRoof(p, plot, h.gflops * 1e9, h.gbps * 1e9, tr("host %1 GB/s").arg(QLocale().toString(h.gbps, 'f', 1)));
  const QPointF hostAt = toPixel(area, m_range.x1, h.gflops * 1e9);
  p.drawText(QRectF(plot.left(), hostAt.y() + 2, plot.width() - 6, 16), Qt::AlignRight,
             tr("host GEMM %1 (%n thread(s))", nullptr, h.threads).arg(flopsText(h.gflops * 1e9)));
}

void RooflineChart::paintPoints(QPainter& p, const QRectF& plot) const {
  const QRectF area = plot.adjusted(-kLeft, -kTop, kRight, kBottom);
  p.setPen(QPen(Qt::white, 0.8));
  p.setBrush(kEstimated);
  for (const auto& pt : m_data->roofline.points)
    if (pt.intensity > 0 && pt.estimatedTflops > 0)
      p.drawEllipse(toPixel(area, pt.intensity, pt.estimatedTflops * 1e12), 4.5, 4.5);
  p.setBrush(kMeasured);
  for (const auto& h : m_data->hostPoints) {
    if (h.intensity <= 0) continue;
    const QPointF c = toPixel(area, h.intensity, h.gflops * 1e9);
    p.drawPolygon(QPolygonF({c + QPointF(0, -5.5), c + QPointF(5, 4), c + QPointF(-5, 4)}));
  }
  if (m_selected < 0) return;
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(kSelected, 2.2));
  for (const auto& pt : m_data->roofline.points)
    if (pt.section == m_selected && pt.intensity > 0 && pt.estimatedTflops > 0)
      p.drawEllipse(toPixel(area, pt.intensity, pt.estimatedTflops * 1e12), 8, 8);
  for (const auto& h : m_data->hostPoints)
    if (h.section == m_selected && h.intensity > 0) p.drawEllipse(toPixel(area, h.intensity, h.gflops * 1e9), 8, 8);
}

void RooflineChart::paintLegend(QPainter& p, const QRectF& plot) const {
  double x = plot.left();
  const double y = plot.top() - kTop + 4;
  p.setPen(Qt::NoPen);
  p.setBrush(kEstimated);
  p.drawEllipse(QPointF(x + 6, y + 8), 4.5, 4.5);
  p.setPen(palette().color(QPalette::Text));
  const QString est = tr("section, estimated (cost model)");
  p.drawText(QRectF(x + 14, y, 400, 16), Qt::AlignLeft | Qt::AlignVCenter, est);
  x += 14 + p.fontMetrics().horizontalAdvance(est) + 20;
  if (m_data->hostPoints.empty()) {
    p.drawText(QRectF(x, y, plot.right() - x, 16), Qt::AlignLeft | Qt::AlignVCenter,
               tr("no run measured these sections: no host points"));
    return;
  }
  p.setPen(Qt::NoPen);
  p.setBrush(kMeasured);
  p.drawPolygon(QPolygonF({QPointF(x + 6, y + 2.5), QPointF(x + 11, y + 12), QPointF(x + 1, y + 12)}));
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRectF(x + 14, y, 400, 16), Qt::AlignLeft | Qt::AlignVCenter,
             tr("section, measured on the host (latest run)"));
}

int RooflineChart::sectionAt(QPoint pos) const {
  if (!m_data) return -1;
  const QRectF area = rect();
  int best = -1;
  double bestDistance = kHitPx;
  auto consider = [&](int section, QPointF c) {
    const double d = std::hypot(c.x() - pos.x(), c.y() - pos.y());
    if (d <= bestDistance) best = section, bestDistance = d;
  };
  for (const auto& pt : m_data->roofline.points)
    if (pt.intensity > 0 && pt.estimatedTflops > 0)
      consider(pt.section, toPixel(area, pt.intensity, pt.estimatedTflops * 1e12));
  for (const auto& h : m_data->hostPoints)
    if (h.intensity > 0) consider(h.section, toPixel(area, h.intensity, h.gflops * 1e9));
  return best;
}

void RooflineChart::mousePressEvent(QMouseEvent* event) {
  const int section = sectionAt(event->pos());
  if (section < 0) return;
  setSelectedSection(section);
  emit sectionClicked(section);
}

bool RooflineChart::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const int section = sectionAt(help->pos());
  if (section < 0) {
    QToolTip::hideText();
    return true;
  }
  const analysis::RooflinePoint& pt = m_data->roofline.points.at(static_cast<size_t>(section));
  QString tip =
      tr("%1\n%2 per call, %3 off chip: %4 FLOP/byte\nestimated %5, roof %6 (%7-bound)")
          .arg(m_data->sectionNames.at(static_cast<size_t>(section)), formatFlop(pt.tflop * 1e12),
               formatBytes(pt.bytes), QLocale().toString(pt.intensity, 'g', 4), flopsText(pt.estimatedTflops * 1e12),
               flopsText(pt.attainableTflops * 1e12), QString::fromStdString(pt.bound));
  for (const auto& h : m_data->hostPoints)
    if (h.section == section)
      tip += QLatin1Char('\n') +
             tr("measured on the host: %1 per call, %2").arg(formatDuration(h.meanUs), flopsText(h.gflops * 1e9));
  QToolTip::showText(help->globalPos(), tip, this);
  return true;
}

}  // namespace dfc::views
