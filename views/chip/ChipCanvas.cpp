#include "chip/ChipCanvas.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace dfc::views {

namespace {

constexpr double kMargin = 8;

QColor colour(const std::string& hex) { return QColor(QString::fromStdString(hex)); }

// White (idle) to dark orange (the busiest cell of the step).
QColor heatColour(int busy, int most) {
  const double t = most > 0 ? std::clamp(static_cast<double>(busy) / most, 0.0, 1.0) : 0.0;
  return QColor::fromRgbF(static_cast<float>(1.0 - 0.15 * t), static_cast<float>(1.0 - 0.6 * t),
                          static_cast<float>(1.0 - 0.95 * t));
}

double distanceToSegment(QPointF p, QLineF line) {
  const QPointF d = line.p2() - line.p1();
  const double len2 = d.x() * d.x() + d.y() * d.y();
  const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - line.p1(), d) / len2, 0.0, 1.0) : 0.0;
  const QPointF q = line.p1() + t * d;
  return std::hypot(p.x() - q.x(), p.y() - q.y());
}

}  // namespace

ChipCanvas::ChipCanvas(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(200, 150);
}

void ChipCanvas::setModel(analysis::ChipModel model) {
  m_model = std::move(model);
  m_opColours = analysis::opColours(m_model.ops());
  m_unitAt.assign(static_cast<size_t>(m_model.rows) * static_cast<size_t>(m_model.cols), -1);
  for (size_t i = 0; i < m_model.units.size(); ++i) {
    const auto& u = m_model.units[i];
    if (u.row < m_model.rows && u.col < m_model.cols)
      m_unitAt[static_cast<size_t>(u.row * m_model.cols + u.col)] = static_cast<int>(i);
  }
  update();
}

double ChipCanvas::cellSize(QSize size) const {
  if (m_model.rows == 0 || m_model.cols == 0) return 0;
  return std::max(1.0,
                  std::min((size.width() - 2 * kMargin) / m_model.cols, (size.height() - 2 * kMargin) / m_model.rows));
}

// The grid centred in `size`.
QRectF ChipCanvas::cellRect(int row, int col, QSize size) const {
  const double c = cellSize(size);
  const double left = std::max(kMargin, (size.width() - c * m_model.cols) / 2);
  const double top = std::max(kMargin, (size.height() - c * m_model.rows) / 2);
  return {left + col * c, top + row * c, c, c};
}

// Between the two switches' centres, shifted to its side so that both directions of a pair show.
QLineF ChipCanvas::linkLine(const analysis::ChipLink& l, QSize size) const {
  const double shift = cellSize(size) * (l.dir == 1 || l.dir == 2 ? 0.18 : -0.18);
  const bool vertical = l.dir == 0 || l.dir == 2;
  const QPointF offset = vertical ? QPointF(shift, 0) : QPointF(0, shift);
  return {cellRect(l.row, l.col, size).center() + offset, cellRect(l.toRow, l.toCol, size).center() + offset};
}

// The tiles' background, or (`borders`) their outlines over what is drawn on them.
void ChipCanvas::paintTiles(QPainter& p, QSize size, bool borders) const {
  const int across = std::max(1, m_model.cols / std::max(1, m_model.tileCols));
  p.setPen(borders ? QPen(QColor(0x33, 0x33, 0x33), 2) : QPen(Qt::NoPen));
  p.setBrush(borders ? QBrush(Qt::NoBrush) : QBrush(QColor(0xf4, 0xf4, 0xf4)));
  for (int t = 0; t < m_model.tiles; ++t) {
    const int r0 = t / across * m_model.tileRows, c0 = t % across * m_model.tileCols;
    p.drawRect(cellRect(r0, c0, size).united(cellRect(r0 + m_model.tileRows - 1, c0 + m_model.tileCols - 1, size)));
  }
}

void ChipCanvas::paintUnits(QPainter& p, QSize size) const {
  const double c = cellSize(size), inset = c > 4 ? 1 : 0;
  p.setPen(Qt::NoPen);
  for (const auto& u : m_model.units) {
    const QColor op = colour(m_opColours.at(u.op));
    p.setBrush(u.pmu ? op.lighter(145) : op);  // PMUs a lighter shade of their op
    const QRectF r = cellRect(u.row, u.col, size).adjusted(inset, inset, -inset, -inset);
    if (u.pmu && c > 6)
      p.drawRoundedRect(r, c * 0.3, c * 0.3);
    else
      p.drawRect(r);
  }
}

void ChipCanvas::paintHeat(QPainter& p, QSize size) const {
  p.setPen(Qt::NoPen);
  const int most = m_model.heat.empty() ? 0 : *std::max_element(m_model.heat.begin(), m_model.heat.end());
  for (int r = 0; r < m_model.rows; ++r)
    for (int col = 0; col < m_model.cols; ++col) {
      const int busy = m_model.heat[static_cast<size_t>(r * m_model.cols + col)];
      if (busy == 0) continue;
      p.setBrush(heatColour(busy, most));
      p.drawRect(cellRect(r, col, size));
    }
}

// Width grows with load (a lightly loaded link stays a hairline that hides no unit), colour by load / capacity.
void ChipCanvas::paintLinks(QPainter& p, QSize size) const {
  const double full = std::max(2.0, cellSize(size) * 0.2);
  for (const auto& l : m_model.links) {
    const double share = m_model.capacity > 0 ? std::min(1.0, static_cast<double>(l.load) / m_model.capacity) : 0.5;
    const double width = m_model.overCapacity(l) ? full * 1.4 : std::max(1.0, full * share);
    p.setPen(QPen(colour(analysis::linkColour(l.load, m_model.capacity)), width, Qt::SolidLine, Qt::FlatCap));
    p.drawLine(linkLine(l, size));
  }
}

void ChipCanvas::paint(QPainter& p, QSize size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  p.setRenderHint(QPainter::Antialiasing, false);
  paintTiles(p, size, false);
  if (!m_model.heat.empty())
    paintHeat(p, size);
  else
    paintUnits(p, size);
  paintTiles(p, size, true);
  if (m_model.heat.empty()) paintLinks(p, size);
}

void ChipCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, size());
}

QString ChipCanvas::unitTip(const analysis::ChipUnit& u) const {
  return tr("%1 (%2)\n%3 %4, stages %5, slice %6\ncell (%7, %8), tile %9, chip %10")
      .arg(QString::fromStdString(u.nodeName), QString::fromStdString(u.op), u.pmu ? tr("PMU") : tr("PCU"),
           QString::fromStdString(u.role))
      .arg(u.stages)
      .arg(u.slice)
      .arg(u.row)
      .arg(u.col)
      .arg(u.tile)
      .arg(u.chip);
}

QString ChipCanvas::linkTip(const analysis::ChipLink& l) const {
  QString tip = tr("link (%1, %2) -> (%3, %4): %5 of %6 nets")
                    .arg(l.row)
                    .arg(l.col)
                    .arg(l.toRow)
                    .arg(l.toCol)
                    .arg(l.load)
                    .arg(m_model.capacity);
  return m_model.overCapacity(l) ? tip + tr(", over capacity") : tip;
}

QString ChipCanvas::toolTipAt(QPointF pos) const {
  const double c = cellSize(size());
  if (c <= 0) return {};
  for (const auto& l : m_model.links)
    if (distanceToSegment(pos, linkLine(l, size())) <= std::max(2.0, c * 0.12)) return linkTip(l);
  const QPointF origin = cellRect(0, 0, size()).topLeft();
  const int row = static_cast<int>(std::floor((pos.y() - origin.y()) / c));
  const int col = static_cast<int>(std::floor((pos.x() - origin.x()) / c));
  if (row < 0 || col < 0 || row >= m_model.rows || col >= m_model.cols) return {};
  const size_t cell = static_cast<size_t>(row * m_model.cols + col);
  if (!m_model.heat.empty())
    return tr("cell (%1, %2): busy in %3 of %4 section calls")
        .arg(row)
        .arg(col)
        .arg(m_model.heat[cell])
        .arg(m_model.calls);
  return m_unitAt[cell] >= 0 ? unitTip(m_model.units[static_cast<size_t>(m_unitAt[cell])]) : QString();
}

bool ChipCanvas::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  auto* help = static_cast<QHelpEvent*>(e);
  const QString tip = toolTipAt(help->pos());
  if (tip.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), tip, this);
  return true;
}

}  // namespace dfc::views
