#include "timeline/TimelinePanel.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "graph/GraphLegend.h"
#include "timeline/TimelineView.h"

namespace dfc::views {

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent) {
  m_view = new TimelineView(this);
  m_find = new QLineEdit(this);
  m_find->setPlaceholderText(tr("Find slices by name"));
  m_find->setClearButtonEnabled(true);
  m_find->setToolTip(
      tr("Counts the slices whose name contains the text; Enter shows the next, Shift+Enter the previous"));
  m_matches = new QLabel(this);
  m_previous = new QToolButton(this);
  m_previous->setArrowType(Qt::LeftArrow);
  m_previous->setToolTip(tr("Previous match"));
  m_next = new QToolButton(this);
  m_next->setArrowType(Qt::RightArrow);
  m_next->setToolTip(tr("Next match"));
  connect(m_find, &QLineEdit::textChanged, this, &TimelinePanel::find);
  connect(m_find, &QLineEdit::returnPressed, this,
          [this] { step(!(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });
  connect(m_previous, &QToolButton::clicked, this, [this] { step(false); });
  connect(m_next, &QToolButton::clicked, this, [this] { step(true); });
  connect(m_view, &TimelineView::dataChanged, this, &TimelinePanel::find);  // a new trace, new names
  connect(m_view, &TimelineView::visibleRangeChanged, this, &TimelinePanel::showMatchCount);
  m_notice = new QLabel(this);
  m_notice->setWordWrap(true);
  m_notice->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; padding: 4px; }"));
  m_notice->setVisible(false);
  m_legend = new LegendBox(this);
  m_legend->list()->setToolTip(tr("Slice colours, busiest first; click one to find its slices"));
  auto* legendButton = new QToolButton(this);
  auto* split = new QSplitter(Qt::Horizontal, this);
  connect(m_view, &TimelineView::legendChanged, m_legend, [this, legendButton, split] {
    m_legend->list()->setEntries(m_view->legend());
    m_legend->setNote(m_view->legendNote());
    m_legend->setVisible(legendButton->isChecked() && legend()->count() > 0);  // no trace, no legend
    m_legend->fitInto(split);
  });
  connect(m_legend->list(), &GraphLegend::keyClicked, this, [this](const QString& key) {
    m_find->setText(key);
    step(true);
  });
  legendButton->setText(tr("Legend"));
  legendButton->setCheckable(true);
  legendButton->setChecked(true);
  legendButton->setAutoRaise(true);
  connect(legendButton, &QToolButton::toggled, m_legend, [this](bool on) { m_legend->setVisible(on && legend()->count() > 0); });
  m_legend->setVisible(false);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  bar->addWidget(m_find, 1);
  bar->addWidget(m_matches);
  bar->addWidget(m_previous);
  bar->addWidget(m_next);
  bar->addWidget(legendButton);
  split->addWidget(m_view);
  split->addWidget(m_legend);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  split->setSizes({700, 170});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(m_notice);
  layout->addWidget(split, 1);
  find();
}

GraphLegend* TimelinePanel::legend() const { return m_legend->list(); }

void TimelinePanel::focusFind() {
  m_find->setFocus(Qt::ShortcutFocusReason);
  m_find->selectAll();
}

void TimelinePanel::setNotice(const QString& text) {
  m_notice->setText(text);
  m_notice->setVisible(!text.isEmpty());
}

void TimelinePanel::find() {
  const size_t count = m_view->findSlices(m_find->text().trimmed());
  showMatchCount();
  m_previous->setEnabled(count > 0);
  m_next->setEnabled(count > 0);
}

// "1,234 slice(s) in 2 name(s), 57 in view": calls, a mirrored one once.
void TimelinePanel::showMatchCount() {
  if (m_find->text().trimmed().isEmpty()) {
    m_matches->clear();
    return;
  }
  const size_t count = m_view->search().count, names = m_view->search().names.size();
  m_matches->setText(tr("%n slice(s)", nullptr, static_cast<int>(count)) +
                     (names > 1 ? tr(" in %n name(s)", nullptr, static_cast<int>(names)) : QString()) +
                     (count > 0 ? tr(", %1 in view").arg(QLocale().toString(static_cast<qulonglong>(m_view->matchesInView())))
                                : QString()));
}

void TimelinePanel::step(bool forward) {
  if (!m_view->showMatch(forward)) m_matches->setText(tr("no more matches"));
}

}  // namespace dfc::views
