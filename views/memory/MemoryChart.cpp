#include "memory/MemoryChart.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "style/Units.h"

namespace dfc::views {
namespace {

constexpr double kLeft = 78, kRight = 16, kTop = 46, kBottom = 40;  // the legend, then the peak's label, above the bars
const QColor kKindColors[analysis::kMemKinds] = {QColor(0x4c, 0x72, 0xb0), QColor(0x55, 0xa8, 0x68),
                                                 QColor(0xc4, 0x4e, 0x52), QColor(0x81, 0x72, 0xb2),
                                                 QColor(0xcc, 0xb9, 0x74)};
const QColor kPeak(0xd6, 0x27, 0x28);
const QColor kLifetime(0xff, 0xd5, 0x4f, 110);

// A round step for the byte axis in the binary unit of the top (0, 1, 2, 3 GiB
// rather than 0, 977 KiB, 1.91 MiB): 1, 2 or 5 x a power of ten of that unit.
double niceStep(double top) {
  double unit = 1;
  while (top / unit >= 1024) unit *= 1024;
  const double raw = top / unit / 4;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power * unit;
  return 10 * power * unit;
}

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(260);
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void MemoryChart::setData(const MemoryViewData* data) {
  m_data = data && !data->empty() ? data : nullptr;
  m_first = m_last = m_currentCall = -1;
  update();
}

void MemoryChart::setTier(MemTier tier) {
  m_tier = tier;
  update();
}

void MemoryChart::setLifetime(int first, int last) {
  m_first = first;
  m_last = last;
  update();
}

void MemoryChart::setCurrentCall(int call) {
  m_currentCall = call;
  update();
}

QColor MemoryChart::kindColor(MemKind kind) const { return kKindColors[static_cast<int>(kind)]; }

QRectF MemoryChart::plotRect(const QRectF& area) const { return area.adjusted(kLeft, kTop, -kRight, -kBottom); }

void MemoryChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);  // crisp bars
  paintChart(p, rect());
}

void MemoryChart::paintChart(QPainter& p, const QRectF& area) const {
  p.save();
  p.setPen(palette().color(QPalette::Text));
  if (!m_data) {
    p.drawText(area, Qt::AlignCenter, tr("No memory timeline: open a PEF."));
    p.restore();
    return;
  }
  const QRectF plot = plotRect(area);
  const double capacity = m_data->timeline.capacity[static_cast<size_t>(m_tier)];
  const double most = static_cast<double>(m_data->maxTotal(m_tier));
  double top = std::max(most, capacity > 0 && capacity < 4 * most ? capacity : 0.0);
  if (top <= 0) top = 1;
  top *= 1.08;  // headroom for the peak's label
  paintBars(p, plot, top);
  paintAxes(p, plot, top);
  paintMarks(p, plot, top);
  paintLegend(p, area);
  p.restore();
}

void MemoryChart::paintBars(QPainter& p, const QRectF& plot, double top) const {
  const int n = m_data->calls();
  const double w = plot.width() / n;
  if (m_first >= 0)
    p.fillRect(QRectF(plot.left() + m_first * w, plot.top(), (m_last - m_first + 1) * w, plot.height()), kLifetime);
  for (int c = 0; c < n; ++c) {
    double y = plot.bottom();
    const auto stack = m_data->stack(c, m_tier);
    for (int k = 0; k < analysis::kMemKinds; ++k) {
      if (stack[static_cast<size_t>(k)] <= 0) continue;
      const double h = plot.height() * static_cast<double>(stack[static_cast<size_t>(k)]) / top;
      // Bars of at least one pixel: thousands of calls share the width.
      p.fillRect(QRectF(plot.left() + c * w, y - h, std::max(w - (w > 4 ? 1 : 0), 1.0), h), kKindColors[k]);
      y -= h;
    }
  }
}

void MemoryChart::paintAxes(QPainter& p, const QRectF& plot, double top) const {
  const QColor text = palette().color(QPalette::Text);
  p.setPen(QColor(0xc8, 0xc8, 0xc8));
  const double step = niceStep(top);
  for (double v = 0; v <= top; v += step) {
    const double y = plot.bottom() - plot.height() * v / top;
    p.setPen(QColor(0xe0, 0xe0, 0xe0));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(text);
    p.drawText(QRectF(0, y - 9, kLeft - 6, 18), Qt::AlignRight | Qt::AlignVCenter, formatBytes(v));
  }
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  const int n = m_data->calls();
  const int every = std::max(1, static_cast<int>(std::ceil(n / (plot.width() / 60))));
  for (int c = 0; c < n; c += every)
    p.drawText(QRectF(plot.left() + (c + 0.5) * plot.width() / n - 30, plot.bottom() + 2, 60, 16), Qt::AlignCenter,
               QString::number(c));
  p.drawText(QRectF(plot.left(), plot.bottom() + 18, plot.width(), 18), Qt::AlignCenter,
             tr("section call of one step (schedule order)"));
}

void MemoryChart::paintMarks(QPainter& p, const QRectF& plot, double top) const {
  const double w = plot.width() / m_data->calls();
  const double capacity = m_data->timeline.capacity[static_cast<size_t>(m_tier)];
  if (capacity > 0 && capacity <= top) {
    const double y = plot.bottom() - plot.height() * capacity / top;
    p.setPen(QPen(kPeak, 1.2, Qt::DashLine));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    const QString label = tr("capacity %1").arg(formatBytes(capacity));
    const double boxW = p.fontMetrics().horizontalAdvance(label) + 8;
    const QRectF box(plot.right() - boxW - 4, y - 17, boxW, 15);
    p.fillRect(box, QColor(255, 255, 255, 215));  // readable over the bars
    p.drawText(box, Qt::AlignCenter, label);
  }
  if (m_currentCall >= 0) {
    p.setPen(QPen(QColor(0x33, 0x33, 0x33), 1, Qt::DotLine));
    const double x = plot.left() + (m_currentCall + 0.5) * w;
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  const analysis::TierPeak& peak = m_data->peak(m_tier);
  if (peak.call < 0) return;
  const double x = plot.left() + (peak.call + 0.5) * w;
  const double y = plot.bottom() - plot.height() * static_cast<double>(peak.bytes) / top;
  p.setPen(QPen(kPeak, 2));
  p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  p.setBrush(kPeak);
  p.drawPolygon(QPolygonF({QPointF(x - 6, y - 10), QPointF(x + 6, y - 10), QPointF(x, y - 1)}));
  const QString label =
      tr("peak %1 at call %2 (%3)")
          .arg(formatBytes(static_cast<double>(peak.bytes)))
          .arg(peak.call)
          .arg(m_data->sectionNames.at(static_cast<size_t>(m_data->callSections[static_cast<size_t>(peak.call)])));
  const double labelW = p.fontMetrics().horizontalAdvance(label) + 8;
  const double lx = std::clamp(x - labelW / 2, plot.left(), plot.right() - labelW);
  p.setPen(kPeak);
  p.drawText(QRectF(lx, plot.top() - 20, labelW, 16), Qt::AlignCenter, label);
}

void MemoryChart::paintLegend(QPainter& p, const QRectF& area) const {
  double x = area.left() + kLeft;
  p.setPen(palette().color(QPalette::Text));
  for (int k = 0; k < analysis::kMemKinds; ++k) {
    const QString name = memKindDisplayName(static_cast<MemKind>(k));
    p.fillRect(QRectF(x, area.top() + 4, 12, 12), kKindColors[k]);
    p.drawText(QRectF(x + 16, area.top() + 1, 200, 18), Qt::AlignLeft | Qt::AlignVCenter, name);
    x += 16 + p.fontMetrics().horizontalAdvance(name) + 18;
  }
}

int MemoryChart::callAt(QPoint pos) const {
  if (!m_data) return -1;
  const QRectF plot = plotRect(rect());
  if (!plot.contains(pos)) return -1;
  return std::clamp(static_cast<int>((pos.x() - plot.left()) / plot.width() * m_data->calls()), 0, m_data->calls() - 1);
}

void MemoryChart::mousePressEvent(QMouseEvent* event) {
  const int call = callAt(event->pos());
  if (call >= 0) emit callClicked(call);
}

bool MemoryChart::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const int call = callAt(help->pos());
  if (call < 0) {
    QToolTip::hideText();
    return true;
  }
  QStringList lines{
      tr("call %1: %2")
          .arg(call)
          .arg(m_data->sectionNames.at(static_cast<size_t>(m_data->callSections[static_cast<size_t>(call)])))};
  const auto stack = m_data->stack(call, m_tier);
  for (int k = 0; k < analysis::kMemKinds; ++k)
    if (stack[static_cast<size_t>(k)] > 0)
      lines << QStringLiteral("%1: %2").arg(memKindDisplayName(static_cast<MemKind>(k)),
                                            formatBytes(static_cast<double>(stack[static_cast<size_t>(k)])));
  lines << tr("total %1").arg(formatBytes(static_cast<double>(m_data->stackTotal(call, m_tier))));
  QToolTip::showText(help->globalPos(), lines.join(QLatin1Char('\n')), this);
  return true;
}

}  // namespace dfc::views
