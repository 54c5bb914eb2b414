#include "graph/GraphLegend.h"

#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSplitter>
#include <QVBoxLayout>

#include "graph/GraphView.h"

namespace dfc::views {
namespace {

constexpr int kKeyRole = Qt::UserRole;

}  // namespace

GraphLegend::GraphLegend(QWidget* parent) : QListWidget(parent) {
  setSelectionMode(QAbstractItemView::SingleSelection);
  setFocusPolicy(Qt::NoFocus);
  setIconSize(QSize(14, 14));
  setTextElideMode(Qt::ElideRight);  // fitTexts elides names in the middle; this only if figures alone overflow
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
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
    item->setData(kFullTextRole, entry.label);
    item->setToolTip(entry.key.isEmpty() ? entry.label : tr("%1\nClick to select these nodes").arg(entry.label));
    addItem(item);
  }
  fitTexts();
  updateGeometry();
}

void GraphLegend::resizeEvent(QResizeEvent* event) {
  QListWidget::resizeEvent(event);
  fitTexts();
}

void GraphLegend::fitTexts() {
  const QFontMetrics metrics = fontMetrics();
  const int available = viewport()->width() - iconSize().width() - 14;
  const QString separator = QStringLiteral(" · ");
  for (int i = 0; i < count(); ++i) {
    QListWidgetItem* it = item(i);
    const QString full = it->data(kFullTextRole).toString();
    const qsizetype cut = full.indexOf(separator);
    if (metrics.horizontalAdvance(full) <= available || cut < 0) {
      it->setText(full);
      continue;
    }
    // Short of room: the first figure alone (the time per step), then the name elided in its middle.
    const qsizetype second = full.indexOf(separator, cut + separator.size());
    const QString figure = second < 0 ? full.mid(cut) : full.mid(cut, second - cut);
    const int room = std::max(metrics.horizontalAdvance(QStringLiteral("hs00…0000")),
                              available - metrics.horizontalAdvance(figure));
    it->setText(metrics.elidedText(full.left(cut), Qt::ElideMiddle, room) + figure);
  }
}

QSize GraphLegend::sizeHint() const {
  int width = 120;
  for (int i = 0; i < count(); ++i)
    width = std::max(width, fontMetrics().horizontalAdvance(item(i)->data(kFullTextRole).toString()) + 48);
  return {std::min(width, kMaxWidth), QListWidget::sizeHint().height()};
}

LegendBox::LegendBox(QWidget* parent) : QWidget(parent) {
  m_list = new GraphLegend(this);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  m_note->setStyleSheet(QStringLiteral("QLabel { color: #555; font-style: italic; padding: 2px 4px; }"));
  m_note->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_note);
  layout->addWidget(m_list, 1);
}

void LegendBox::setNote(const QString& text) {
  m_note->setText(text);
  m_note->setVisible(!text.isEmpty());
}

void LegendBox::fitInto(QSplitter* split) const {
  const QList<int> sizes = split->sizes();
  int total = 0;
  for (int size : sizes) total += size;
  if (total <= 0 || sizes.size() < 2) return;
  const int legend = std::min(m_list->sizeHint().width(), total / 3);
  QList<int> fitted = sizes;
  fitted.last() = legend;
  fitted.first() += sizes.last() - legend;
  split->setSizes(fitted);
}

}  // namespace dfc::views
