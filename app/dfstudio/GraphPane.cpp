#include "GraphPane.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "graph/GraphLegend.h"
#include "graph/GraphView.h"
#include "selection/SelectionState.h"

namespace dfc::studio {

GraphPane::GraphPane(QWidget* parent) : QWidget(parent) {
  m_view = new views::GraphView(this);
  m_legend = new views::GraphLegend(this);
  m_legend->setToolTip(tr("Which colour is what, with the number of nodes of each"));
  m_legend->attach(m_view);

  m_colorMode = new QComboBox(this);
  for (const auto& [mode, id] : views::colorModeIds()) m_colorMode->addItem(views::colorModeName(mode), static_cast<int>(mode));
  m_colorMode->setCurrentIndex(m_colorMode->findData(static_cast<int>(m_view->colorMode())));
  m_colorMode->setToolTip(tr("What the node colours show"));
  connect(m_colorMode, &QComboBox::currentIndexChanged, this, [this] {
    m_view->setColorMode(static_cast<views::GraphColorMode>(m_colorMode->currentData().toInt()));
  });

  m_search = new QLineEdit(this);
  m_search->setPlaceholderText(tr("Find node by name or op (Ctrl+F)"));
  m_search->setClearButtonEnabled(true);
  m_search->setToolTip(tr("Highlights the matching nodes and centres on the first; Enter finds again"));
  m_matches = new QLabel(this);
  connect(m_search, &QLineEdit::textChanged, this, &GraphPane::search);
  connect(m_search, &QLineEdit::returnPressed, this, &GraphPane::search);
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
  QToolButton* fold = button(tr("Fold all"), tr("Fold every hyperfunction into one node"), &views::GraphView::collapseAll);
  QToolButton* unfold = button(tr("Unfold all"), tr("Show every operation"), &views::GraphView::expandAll);
  // Folded to open readably: a node spans many sections, so colour by layer.
  connect(m_view, &views::GraphView::autoFolded, this,
          [this] { setColorMode(views::GraphColorMode::Hyperfunction); });
  connect(m_legend, &views::GraphLegend::keyClicked, this,
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

  m_split = new QSplitter(Qt::Horizontal, this);
  m_split->addWidget(m_view);
  m_split->addWidget(m_legend);
  m_split->setStretchFactor(0, 1);
  m_split->setStretchFactor(1, 0);
  m_split->setSizes({480, 200});
  // The legend takes the width its names need (up to its cap) when they change.
  connect(m_view, &views::GraphView::legendChanged, this, [this] { m_legend->fitInto(m_split); });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(m_split, 1);
}

void GraphPane::setColorMode(views::GraphColorMode mode) {
  m_colorMode->setCurrentIndex(m_colorMode->findData(static_cast<int>(mode)));
  m_view->setColorMode(mode);
}

void GraphPane::setSelectionState(views::SelectionState* selection) {
  // A section picked elsewhere (a slice, the schedule) is outlined and scrolled to.
  connect(selection, &views::SelectionState::sectionChanged, m_view,
          [this](int section) { m_view->highlightSection(section, true); });
  connect(m_view, &views::GraphView::nodeSelected, selection, [selection](const views::NodeDetails& node) {
    if (node.isValid()) selection->selectSection(node.section, node.hypersectionName);
  });
  m_view->highlightSection(selection->section());
}

void GraphPane::focusSearch() {
  m_search->setFocus(Qt::ShortcutFocusReason);
  m_search->selectAll();
}

void GraphPane::search() {
  const QString text = m_search->text();
  const QList<int> found = m_view->findNodes(text);
  m_matches->setText(text.trimmed().isEmpty() ? QString() : tr("%n match(es)", nullptr, static_cast<int>(found.size())));
}

}  // namespace dfc::studio
