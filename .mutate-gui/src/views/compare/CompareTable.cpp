// CompareView's table of section groups: one row per group, each side's
// sections, estimated and measured time per step, and the change.
#include <QLocale>
#include <QPainter>
#include <QPixmap>
#include <QTableWidget>

#include "compare/CompareView.h"
#include "style/Units.h"

namespace dfc::views {
namespace {

QIcon swatch(const QColor& color) {
  QPixmap pixmap(12, 12);
  pixmap.fill(color);
  QPainter painter(&pixmap);
  painter.setPen(color.darker(170));
  painter.drawRect(0, 0, 11, 11);
  return QIcon(pixmap);
}

// A side without the group's sections: a dash; a side that was not run: blank.
QString timeText(bool has, const std::optional<double>& us) {
  if (!has) return QStringLiteral("–");
  return us ? formatDuration(*us) : QString();
}

}  // namespace

void CompareView::fillTable() {
  m_table->setSortingEnabled(false);
  m_table->clearContents();
  m_table->setRowCount(static_cast<int>(m_match->groups.size()));
  auto cell = [this](int row, int column, const QString& text) {
    auto* item = new QTableWidgetItem(text);
    const bool leftAligned = column <= 1 || column >= 7;
    item->setTextAlignment(leftAligned ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(row, column, item);
    return item;
  };
  for (int r = 0; r < m_table->rowCount(); ++r) {
    const SectionGroup& g = m_match->groups[static_cast<size_t>(r)];
    QTableWidgetItem* holds = cell(r, 0, g.holds);
    holds->setData(Qt::UserRole + 1, r);  // the group, whatever the row order
    holds->setToolTip(g.holds);
    cell(r, 1, sectionChangeName(g.change))->setData(Qt::DecorationRole, swatch(sectionChangeColor(g.change)));
    for (int side = 0; side < 2; ++side) {
      const bool has = !g.sections[side].empty() || g.measuredUs[side].has_value();
      cell(r, 7 + side, has ? g.names[side] : QStringLiteral("–"))
          ->setToolTip(tr("%n section(s), %1 operator(s), %2 call(s) per step", nullptr,
                          static_cast<int>(g.sections[side].size()))
                           .arg(g.ops[side])
                           .arg(g.calls[side]));
      cell(r, 2 + side, g.sections[side].empty() ? QStringLiteral("–") : formatDuration(g.estUs[side]));
      cell(r, 4 + side, timeText(has, g.measuredUs[side]));
    }
    const bool comparable = !g.sections[0].empty() && !g.sections[1].empty();
    const double delta = g.deltaUs();
    QTableWidgetItem* change = cell(r, 6, !comparable ? QStringLiteral("–")
                                                      : (delta > 0 ? QStringLiteral("+") : QString()) + formatDuration(delta));
    if (comparable) change->setForeground(delta > 0 ? QColor(0xb0, 0x20, 0x20) : QColor(0x20, 0x80, 0x30));
    change->setToolTip(g.measured() ? tr("measured on both sides") : tr("estimated (a side was not run)"));
  }
  m_table->resizeColumnsToContents();
}

}  // namespace dfc::views
