#include "compare/CompareView.h"

#include <QHeaderView>
#include <algorithm>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "graph/GraphLegend.h"
#include "graph/GraphOverlay.h"
#include "graph/GraphView.h"
#include "style/ColorIdentity.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

namespace dfc::views {

QColor sectionChangeColor(SectionChange change) {
  switch (change) {
    case SectionChange::Unchanged: return QColor(0xd9, 0xd9, 0xd9);
    case SectionChange::Merged: return QColor(0x5b, 0x8f, 0xe0);
    case SectionChange::Split: return QColor(0xf2, 0xb1, 0x3d);
    case SectionChange::Regrouped: return QColor(0xc0, 0x6d, 0xe8);
    case SectionChange::OnlyLeft: return QColor(0xf2, 0x6b, 0x7d);
    case SectionChange::OnlyRight: return QColor(0x4c, 0xbf, 0x8a);
  }
  return QColor(0xd9, 0xd9, 0xd9);
}

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  m_summaryLabel = new QLabel(tr("Open two compiles or runs to compare them"), this);
  m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summaryLabel->setWordWrap(true);
  m_summaryLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_table = new QTableWidget(0, 9, this);
  m_table->setHorizontalHeaderLabels({tr("Operators"), tr("Change"), tr("Est. L"), tr("Est. R"), tr("Measured L"),
                                      tr("Measured R"), tr("Δ per step"), tr("Left sections"), tr("Right sections")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setToolTip(tr("Sections matched by the operators they hold: a row is the sections of each side that hold "
                         "the same operators. Times per step; Δ is measured when both sides were run, else estimated."));
  connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
    if (m_syncing) return;
    const auto rows = m_table->selectionModel()->selectedRows();
    if (!rows.isEmpty()) selectGroup(m_table->item(rows.first().row(), 0)->data(Qt::UserRole + 1).toInt());
  });
  auto* tableColumn = new QWidget(this);
  auto* tableBox = new QVBoxLayout(tableColumn);
  tableBox->setContentsMargins(0, 0, 0, 0);
  tableBox->addWidget(m_summaryLabel);
  tableBox->addWidget(m_table, 1);  // the rows take the pane's height

  m_tabs = new QTabWidget(this);
  m_tabs->addTab(buildDiff(), tr("Graph diff"));
  m_tabs->addTab(buildSideBySide(), tr("Side by side"));
  auto* body = new QSplitter(Qt::Horizontal, this);
  body->addWidget(tableColumn);
  body->addWidget(m_tabs);
  body->setStretchFactor(0, 5);
  body->setStretchFactor(1, 6);
  body->setSizes({640, 760});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(body, 1);
  for (int side = 0; side < 2; ++side) connectSync(side);
  for (GraphView* graph : {m_graphs[0], m_graphs[1], m_diff}) {
    connect(graph, &GraphView::layoutShown, this, &CompareView::layoutDone);
    connect(graph, &GraphView::layoutFailed, this, &CompareView::layoutDone);
  }
  connect(m_diff, &GraphView::nodeSelected, this,
          [this](const NodeDetails& node) { selectGroup(groupOfNode(m_diff, 1, node.index)); });
}

QWidget* CompareView::buildDiff() {
  auto* page = new QWidget(this);
  auto* box = new QVBoxLayout(page);
  box->setContentsMargins(0, 0, 0, 0);
  m_diffTitle = new QLabel(tr("Open both sides to see how their sections differ"), page);
  m_diffTitle->setWordWrap(true);
  m_diff = new GraphView(page);
  auto* legend = new GraphLegend(page);
  legend->attach(m_diff);
  legend->setToolTip(tr("How each operator's section changed from the left compile to the right; click to select"));
  auto* split = new QSplitter(Qt::Horizontal, page);
  split->addWidget(m_diff);
  split->addWidget(legend);
  split->setStretchFactor(0, 1);
  split->setSizes({600, 160});
  box->addWidget(m_diffTitle);
  box->addWidget(split, 1);
  return page;
}

QWidget* CompareView::buildSideBySide() {
  auto* columns = new QSplitter(Qt::Horizontal, this);
  for (int side = 0; side < 2; ++side) {
    auto* column = new QWidget(columns);
    auto* box = new QVBoxLayout(column);
    box->setContentsMargins(0, 0, 0, 0);
    m_titles[side] = new QLabel(side == 0 ? tr("Left: nothing open") : tr("Right: nothing open"), column);
    auto* rows = new QSplitter(Qt::Vertical, column);
    m_graphs[side] = new GraphView(rows);
    m_graphs[side]->setColorMode(GraphColorMode::Hypersection);
    m_timelines[side] = new TimelineView(rows);
    rows->setSizes({500, 500});  // graph and timeline share the height
    box->addWidget(m_titles[side]);
    box->addWidget(rows, 1);
    columns->addWidget(column);
  }
  return columns;
}

// Both sides in step: time range relative to each trace's start, graph zoom as is;
// a node picked on either side selects its group on both.
void CompareView::connectSync(int side) {
  TimelineView* from = m_timelines[side];
  TimelineView* to = m_timelines[1 - side];
  connect(from, &TimelineView::visibleRangeChanged, this, [this, from, to](double start, double duration) {
    if (m_syncing) return;
    m_syncing = true;
    to->setVisibleRange(to->data().startUs + (start - from->data().startUs), duration);
    m_syncing = false;
  });
  GraphView* graphTo = m_graphs[1 - side];
  connect(m_graphs[side], &GraphView::nodeSelected, this,
          [this, side](const NodeDetails& node) { selectGroup(groupOfNode(m_graphs[side], side, node.index)); });
  connect(m_graphs[side], &GraphView::zoomChanged, this, [this, graphTo](double factor) {
    if (m_syncing) return;
    m_syncing = true;
    graphTo->setZoom(factor);
    m_syncing = false;
  });
}

bool CompareView::isLayoutPending() const {
  return m_graphs[0]->isLayoutPending() || m_graphs[1]->isLayoutPending() || m_diff->isLayoutPending();
}

void CompareView::showDiff() { m_tabs->setCurrentIndex(0); }
void CompareView::showSideBySide() { m_tabs->setCurrentIndex(1); }

void CompareView::setLeft(std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace) {
  setSide(0, std::move(pef), std::move(trace));
}

void CompareView::setRight(std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace) {
  setSide(1, std::move(pef), std::move(trace));
}

void CompareView::setSide(int side, std::shared_ptr<const pef::Pef> pef,
                          std::shared_ptr<const profile::CompactTrace> trace) {
  m_pefs[side] = pef;
  m_traces[side] = trace;
  if (pef) {
    // Aliasing shared_ptrs: the graph and plan live as long as the PEF.
    m_graphs[side]->setModel(std::shared_ptr<const ir::Graph>(pef, &pef->graph),
                             std::shared_ptr<const partition::Plan>(pef, &pef->plan));
    m_titles[side]->setText(summarizeSide(*pef, trace.get()).label);
  } else {
    m_graphs[side]->clear();
  }
  // A compile without a run has no timeline: the graph takes the column.
  m_timelines[side]->setVisible(trace != nullptr);
  m_timelines[side]->setData(trace ? buildTimelineData(profile::CompactTrace(*trace)) : TimelineData{});
  refreshSummary();
}

void CompareView::setTrace(int side, std::shared_ptr<const profile::CompactTrace> trace) {
  if (side < 0 || side > 1) return;
  m_traces[side] = trace;
  m_timelines[side]->setVisible(trace != nullptr);
  m_timelines[side]->setData(trace ? buildTimelineData(profile::CompactTrace(*trace)) : TimelineData{});
  refreshSummary();
}

void CompareView::refreshSummary() {
  m_summary.reset();
  m_match.reset();
  m_selectedGroup = -1;
  if (m_pefs[0] && m_pefs[1]) {
    m_summary = compareRuns(*m_pefs[0], m_traces[0].get(), *m_pefs[1], m_traces[1].get());
    m_match = matchSections(*m_pefs[0], m_traces[0].get(), *m_pefs[1], m_traces[1].get());
  }
  // One palette for both sides. The matched hypersections take it first, biggest
  // change first (past the palette is "other": the rows that matter keep a colour),
  // then the rest of the left's plan, then the right's.
  auto identity = std::make_shared<ColorIdentity>();
  if (m_summary) {
    for (const CompareRow& row : m_summary->rows) identity->addHypersection(row.key);
    for (const auto& keys : m_summary->keyOf)
      for (const auto& [name, key] : keys) identity->aliasHypersection(name, key);
  }
  for (const auto& pef : m_pefs)
    if (pef) identity->addPlan(pef->plan, &pef->graph);
  for (int side = 0; side < 2; ++side) {
    m_graphs[side]->setColorIdentity(identity);
    m_timelines[side]->setColorIdentity(identity);
  }
  if (!m_summary) return;
  m_summaryLabel->setText(m_summary->lines().join(QLatin1Char('\n')));
  fillTable();
  refreshDiff();
}

// The right compile's graph, each section coloured by how its group changed.
void CompareView::refreshDiff() {
  const auto& pef = m_pefs[1];
  if (!pef || !m_match) return;
  std::map<int, QString> categoryOf;
  for (const auto& [section, group] : m_match->groupOfSection[1])
    categoryOf[section] = sectionChangeKey(m_match->groups[static_cast<size_t>(group)].change);
  std::vector<GraphOverlay::Category> categories;
  for (SectionChange c : {SectionChange::Merged, SectionChange::Split, SectionChange::Regrouped,
                          SectionChange::OnlyRight, SectionChange::Unchanged})
    categories.push_back({sectionChangeKey(c), sectionChangeName(c), sectionChangeColor(c)});
  auto overlay = std::make_shared<GraphOverlay>();
  overlay->setSectionCategories(std::move(categoryOf), std::move(categories));
  m_diff->setOverlay(std::move(overlay));
  m_diff->setColorMode(GraphColorMode::Change);
  if (m_diffPef != pef) {  // a new right side: its graph; else the colours alone change
    m_diffPef = pef;
    m_diff->setModel(std::shared_ptr<const ir::Graph>(pef, &pef->graph),
                     std::shared_ptr<const partition::Plan>(pef, &pef->plan));
  }
  int onlyLeft = 0;
  for (const SectionGroup& g : m_match->groups) onlyLeft += g.change == SectionChange::OnlyLeft ? g.ops[0] : 0;
  m_diffTitle->setText(
      tr("%1's operators, coloured by how their section changed from %2").arg(summarizeSide(*pef, nullptr).label,
                                                                             summarizeSide(*m_pefs[0], nullptr).label) +
      (onlyLeft > 0 ? tr(" (%n operator(s) only on the left are not drawn: see the table)", nullptr, onlyLeft) : QString()));
}

int CompareView::groupOfNode(const GraphView* view, int side, int index) const {
  if (!m_match || index < 0 || static_cast<size_t>(index) >= view->graph().nodes.size()) return -1;
  const GraphNode& node = view->graph().nodes[static_cast<size_t>(index)];
  if (node.section >= 0) return m_match->groupOf(side, node.section);
  // A folded layer: the group holding most of its sections.
  std::map<int, int> sectionsOfGroup;
  for (int s : node.sections)
    if (const int g = m_match->groupOf(side, s); g >= 0) ++sectionsOfGroup[g];
  const auto most = std::max_element(sectionsOfGroup.begin(), sectionsOfGroup.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == sectionsOfGroup.end() ? -1 : most->first;
}

void CompareView::selectGroup(int group) {
  if (!m_match || group >= static_cast<int>(m_match->groups.size())) return;
  m_selectedGroup = group;
  m_syncing = true;
  m_table->clearSelection();
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (m_table->item(r, 0)->data(Qt::UserRole + 1).toInt() == group) {
      m_table->selectRow(r);
      m_table->scrollToItem(m_table->item(r, 0));
    }
  m_syncing = false;
  const SectionGroup* g = group >= 0 ? &m_match->groups[static_cast<size_t>(group)] : nullptr;
  for (int side = 0; side < 2; ++side)
    m_graphs[side]->selectSections(g ? std::set<int>(g->sections[side].begin(), g->sections[side].end()) : std::set<int>{});
  m_diff->selectSections(g ? std::set<int>(g->sections[1].begin(), g->sections[1].end()) : std::set<int>{});
  emit groupSelected(group);
}

}  // namespace dfc::views
