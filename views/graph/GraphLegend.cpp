#include "graph/GraphLegend.h"

#include <QPainter>
#include <QPixmap>

#include "graph/GraphView.h"

namespace dfc::views {

GraphLegend::GraphLegend(QWidget* parent) : QListWidget(parent) {
  setSelectionMode(QAbstractItemView::NoSelection);
  setFocusPolicy(Qt::NoFocus);
  setIconSize(QSize(14, 14));
}

void GraphLegend::attach(GraphView* view) {
  auto refresh = [this, view] { setEntries(view->legend()); };
  connect(view, &GraphView::legendChanged, this, refresh);
  refresh();
}

void GraphLegend::setEntries(const std::vector<LegendEntry>& entries) {
  clear();
  for (const LegendEntry& entry : entries) {
    QPixmap swatch(14, 14);
    swatch.fill(entry.color);
    {
      QPainter painter(&swatch);
      painter.setPen(entry.color.darker(170));
      painter.drawRect(0, 0, 13, 13);
    }
    addItem(new QListWidgetItem(QIcon(swatch), tr("%1 (%2)").arg(entry.label).arg(entry.count)));
  }
}

}  // namespace dfc::views
