#include "schedule/GanttStrip.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "schedule/RoleStyle.h"
#include "style/Palette.h"
#include "timeline/SliceInfo.h"

namespace dfc::views {

GanttStrip::GanttStrip(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize GanttStrip::sizeHint() const { return {800, 86}; }
QSize GanttStrip::minimumSizeHint() const { return {200, 86}; }

QColor GanttStrip::typeColor(const QString& type) { return roleColor(type); }

void GanttStrip::setColorIdentity(SharedColorIdentity identity) {
  m_identity = std::move(identity);
  update();
}

QColor GanttStrip::boxColor(int sectionId) const {
  const ScheduleSection* s = m_data ? m_data->section(sectionId) : nullptr;
  if (m_identity && s) return m_identity->hypersection(s->hypersection);
  return typeColor(s ? s->type : QString());
}

void GanttStrip::setData(const ScheduleData* data) {
  m_data = data;
  m_boxes.clear();
  m_totalUs = 0;
  if (data) {
    for (int id : data->schedule) {
      const ScheduleSection* s = data->section(id);
      if (!s) continue;
      const double length = std::max(s->measuredMeanUs.value_or(s->estLatencyUs), 1e-3);
      m_boxes.push_back({m_totalUs, length, id});
      m_totalUs += length;
    }
  }
  update();
}

void GanttStrip::setSelectedSection(int sectionId) {
  m_selected = sectionId;
  update();
}

QRectF GanttStrip::stripRect() const { return QRectF(8, 24, width() - 16, height() - 48); }

int GanttStrip::boxAt(double x) const {
  const QRectF r = stripRect();
  if (m_boxes.empty() || m_totalUs <= 0 || x < r.left() || x > r.right()) return -1;
  const double us = (x - r.left()) / r.width() * m_totalUs;
  auto it = std::upper_bound(m_boxes.begin(), m_boxes.end(), us, [](double v, const Box& b) { return v < b.start; });
  if (it == m_boxes.begin()) return -1;
  return static_cast<int>(std::prev(it) - m_boxes.begin());
}

void GanttStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QRectF r = stripRect();
  p.setPen(palette().text().color());
  if (!m_data || m_boxes.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("Open or compile a PEF to see its section schedule."));
    return;
  }
  const bool measured = m_data->hasMeasured();
  p.drawText(QRectF(r.left(), 2, r.width(), 20), Qt::AlignLeft | Qt::AlignVCenter,
             tr("One step: %n section call(s), %1 (%2)", nullptr, static_cast<int>(m_boxes.size()))
                 .arg(formatDuration(m_totalUs), measured ? tr("measured where run") : tr("sum of section latencies")));
  // Legend on the right of the title line, the roles in table order read left to right
  // (with hypersection colours there is none: the table and graph say which).
  double lx = r.right();
  const auto roles = ir::roles();
  for (auto role = roles.rbegin(); role != roles.rend() && !m_identity; ++role) {
    const QString label = roleLabel(role->role);
    const double w = p.fontMetrics().horizontalAdvance(label) + 18;
    lx -= w + 8;
    p.fillRect(QRectF(lx, 7, 12, 12), roleColor(role->role));
    p.drawText(QRectF(lx + 16, 2, w, 20), Qt::AlignLeft | Qt::AlignVCenter, label);
  }
  const double scale = r.width() / m_totalUs;
  double lastRight = -1;
  for (const Box& b : m_boxes) {
    const double x0 = r.left() + b.start * scale;
    const double x1 = std::max(x0 + 1.0, r.left() + (b.start + b.length) * scale);
    if (x1 <= lastRight) continue;  // folded into the previous pixel
    const ScheduleSection* s = m_data->section(b.sectionId);
    QColor c = boxColor(b.sectionId);
    if (b.sectionId == m_selected) c = c.darker(170);
    const QRectF box(std::max(x0, lastRight), r.top(), x1 - std::max(x0, lastRight), r.height());
    p.fillRect(box, c);
    if (box.width() > 3) {
      p.setPen(palette().base().color());
      p.drawLine(box.topRight(), box.bottomRight());
    }
    if (s && box.width() > p.fontMetrics().horizontalAdvance(s->name) + 6) {
      p.setPen(textColorOn(c));
      p.drawText(box, Qt::AlignCenter, s->name);
    }
    lastRight = x1;
  }
  p.setPen(palette().text().color());
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 20), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 20), Qt::AlignRight | Qt::AlignVCenter, formatDuration(m_totalUs));
}

void GanttStrip::mouseMoveEvent(QMouseEvent* event) {
  const int i = boxAt(event->position().x());
  if (i < 0 || !m_data) {
    QToolTip::hideText();
    return;
  }
  const Box& b = m_boxes[static_cast<size_t>(i)];
  const ScheduleSection* s = m_data->section(b.sectionId);
  if (!s) return;
  QString text = tr("Call %1: section %2 %3 (%4)\nhypersection %5\nestimated %6")
                     .arg(i)
                     .arg(s->id)
                     .arg(s->name, s->type, s->hypersection, formatDuration(s->estLatencyUs));
  if (s->tiledPasses > 0)
    text += tr("\ntiled x%1: an operator too big for a section streams its tiles in %1 passes").arg(s->tiledPasses);
  if (s->measuredMeanUs) text += tr("\nmeasured mean %1 over %n call(s)", nullptr, static_cast<int>(s->calls)).arg(formatDuration(*s->measuredMeanUs));
  QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void GanttStrip::mousePressEvent(QMouseEvent* event) {
  const int i = boxAt(event->position().x());
  if (i < 0) return;
  const int id = m_boxes[static_cast<size_t>(i)].sectionId;
  setSelectedSection(id);
  emit sectionClicked(id);
}

}  // namespace dfc::views
