#include "graph/GraphLegend.h"

#include <QPainter>
#include <QPixmap>
#include <QSplitter>

#include "graph/GraphView.h"

namespace dfc::views {
namespace {

constexpr int kKeyRole = Qt::UserRole;

}  // namespace

GraphLegend::GraphLegend(QWidget* parent) : QListWidget(parent) {
  setSelectionMode(QAbstractItemView::SingleSelection);
  setFocusPolicy(Qt::NoFocus);
  setIconSize(QSize(14, 14));
  setTextElideMode(Qt::ElideNone);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setUniformItemSizes(true);
  connect(this, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { emit keyClicked(item->data(kKeyRole).toString()); });
}

void GraphLegend::attach(GraphView* view) {
  auto refresh = [this, view] { setEntries(view->legend()); };
  connect(view, &GraphView::legendChanged, this, refresh);
  connect(this, &GraphLegend::keyClicked, view, [view](const QString& key) { view->selectKey(key); });
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
    auto* item = new QListWidgetItem(QIcon(swatch), entry.label);
    item->setData(kKeyRole, entry.key);
    item->setToolTip(tr("Click to select these nodes"));
    addItem(item);
  }
  updateGeometry();
}

QSize GraphLegend::sizeHint() const {
  int width = 120;
  for (int i = 0; i < count(); ++i) width = std::max(width, fontMetrics().horizontalAdvance(item(i)->text()) + 48);
  return {std::min(width, 320), QListWidget::sizeHint().height()};
}

void GraphLegend::fitInto(QSplitter* split) const {
  const QList<int> sizes = split->sizes();
  int total = 0;
  for (int size : sizes) total += size;
  if (total <= 0 || sizes.size() < 2) return;
  const int legend = std::min(sizeHint().width(), total / 3);
  QList<int> fitted = sizes;
  fitted.last() = legend;
  fitted.first() += sizes.last() - legend;
  split->setSizes(fitted);
}

}  // namespace dfc::views
