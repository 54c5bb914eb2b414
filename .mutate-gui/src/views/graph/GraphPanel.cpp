#include "GraphPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include "graph/GraphLegend.h"
#include "graph/GraphView.h"
#include "selection/SelectionState.h"

namespace dfc::views {

GraphPanel::GraphPanel(QWidget* parent) : QWidget(parent) {
  m_view = new views::GraphView(this);
  m_legend = new views::LegendBox(this);
  m_legend->list()->setToolTip(tr("Which colour is what, with the number of nodes of each"));
  m_legend->list()->attach(m_view);

  m_colorMode = new QComboBox(this);
  for (const auto& [mode, id] : views::colorModeIds())
    m_colorMode->addItem(views::colorModeName(mode), static_cast<int>(mode));
  m_colorMode->setCurrentIndex(m_colorMode->findData(static_cast<int>(m_view->colorMode())));
  m_colorMode->setToolTip(tr("What the node colours show"));
  connect(m_colorMode, &QComboBox::currentIndexChanged, this, [this] {
    const auto mode = static_cast<views::GraphColorMode>(m_colorMode->currentData().toInt());
    m_view->setColorMode(mode);
    if (!m_settingMode) emit colorModeChosen(mode);
  });

  m_search = new QLineEdit(this);
  m_search->setPlaceholderText(tr("Find node by name or op (Ctrl+F)"));
  m_search->setClearButtonEnabled(true);
  m_search->setToolTip(tr("Highlights the matching nodes and centres on the first; Enter finds again"));
  m_matches = new QLabel(this);
  connect(m_search, &QLineEdit::textChanged, this, &GraphPanel::search);
  connect(m_search, &QLineEdit::returnPressed, this, &GraphPanel::search);
  // A fold/unfold renumbers the nodes and drops the highlight; Enter finds again.
  connect(m_view, &views::GraphView::layoutShown, m_matches, &QLabel::clear);

  auto button = [this](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, m_view, slot);
    return b;
  };
  QToolButton* fit = button(tr("Fit"), tr("Fit the whole graph (Ctrl+Shift+F)"), &views::GraphView::fitGraph);
  QToolButton* fitSelection =
      button(tr("Fit selection"), tr("Fit the found or highlighted nodes"), &views::GraphView::fitSelection);
  QToolButton* fold =
      button(tr("Fold all"), tr("Fold every hyperfunction into one node"), &views::GraphView::collapseAll);
  QToolButton* unfold = button(tr("Unfold all"), tr("Show every operation"), &views::GraphView::expandAll);
  // Folded to open readably: a node spans many sections, which a section or op colour cannot show.
  connect(m_view, &views::GraphView::autoFolded, this, [this] {
    if (m_view->colorMode() == views::GraphColorMode::Section || m_view->colorMode() == views::GraphColorMode::OpType)
      setColorMode(views::GraphColorMode::Cost);
  });
  connect(m_legend->list(), &views::GraphLegend::keyClicked, this,
          [this](const QString& key) { emit legendKeyClicked(m_view->colorMode(), key); });

  auto* colourLabel = new QLabel(tr("C&olour by:"), this);
  colourLabel->setBuddy(m_colorMode);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  bar->addWidget(colourLabel);
  bar->addWidget(m_colorMode);
  bar->addSpacing(6);
  for (QToolButton* b : {fit, fitSelection, fold, unfold}) bar->addWidget(b);
  bar->addSpacing(6);
  bar->addWidget(m_search, 1);
  bar->addWidget(m_matches);

  buildSplit();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(m_split, 1);
}

// The graph beside its legend.
void GraphPanel::buildSplit() {
  m_split = new QSplitter(Qt::Horizontal, this);
  m_split->addWidget(m_view);
  m_split->addWidget(m_legend);
  m_split->setStretchFactor(0, 1);
  m_split->setStretchFactor(1, 0);
  m_split->setSizes({480, 200});
  // The legend takes the width its names need (up to its cap) when they change,
  // and says how cost colours were chosen.
  connect(m_view, &views::GraphView::legendChanged, this, [this] {
    m_legend->setNote(m_view->colorMode() == views::GraphColorMode::Cost ? m_view->colorIdentity().schemeNote()
                                                                         : QString());
    m_legend->fitInto(m_split);
  });
}

void GraphPanel::setColorMode(views::GraphColorMode mode) {
  if (!isModeAvailable(mode)) {
    emit notice(tr("%1 needs a recorded run of this PEF; colouring by cost instead").arg(views::colorModeName(mode)));
    mode = views::GraphColorMode::Cost;
  }
  m_settingMode = true;
  m_colorMode->setCurrentIndex(m_colorMode->findData(static_cast<int>(mode)));
  m_settingMode = false;
  m_view->setColorMode(mode);
}

views::GraphLegend* GraphPanel::legend() const { return m_legend->list(); }

bool GraphPanel::isModeAvailable(views::GraphColorMode mode) const {
  const auto metric = views::overlayMetric(mode);
  if (!metric || views::isUnitUse(*metric)) return true;  // estimates and placement come with every PEF
  return m_view->overlay() && m_view->overlay()->hasMeasured();
}

void GraphPanel::updateModeAvailability() {
  auto* model = qobject_cast<QStandardItemModel*>(m_colorMode->model());
  for (int i = 0; model && i < m_colorMode->count(); ++i) {
    const auto mode = static_cast<views::GraphColorMode>(m_colorMode->itemData(i).toInt());
    const bool available = isModeAvailable(mode);
    QStandardItem* item = model->item(i);
    item->setEnabled(available);
    item->setToolTip(available ? QString()
                               : tr("Needs a recorded run of this PEF: run it (Build > Run) or open its trace's run"));
  }
  if (!isModeAvailable(m_view->colorMode())) setColorMode(m_view->colorMode());  // says so, falls back
}

void GraphPanel::setSelectionState(views::SelectionState* selection) {
  // A section picked elsewhere (a slice, the schedule) is outlined and scrolled to.
  connect(selection, &views::SelectionState::sectionChanged, m_view,
          [this](int section) { m_view->highlightSection(section, true); });
  connect(m_view, &views::GraphView::nodeSelected, selection, [selection](const views::NodeDetails& node) {
    if (node.isValid()) selection->selectSection(node.section, node.hypersectionName);
  });
  m_view->highlightSection(selection->section());
}

void GraphPanel::focusSearch() {
  m_search->setFocus(Qt::ShortcutFocusReason);
  m_search->selectAll();
}

void GraphPanel::search() {
  const QString text = m_search->text();
  const QList<int> found = m_view->findNodes(text);
  m_matches->setText(text.trimmed().isEmpty() ? QString()
                                              : tr("%n match(es)", nullptr, static_cast<int>(found.size())));
}

}  // namespace dfc::views
