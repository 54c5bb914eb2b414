#include "compare/CompareView.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "graph/GraphView.h"
#include "style/ColorIdentity.h"
#include "timeline/SliceInfo.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

namespace dfc::views {

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_summaryLabel = new QLabel(tr("Open two compiles or runs to compare them"), this);
  m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summaryLabel->setWordWrap(true);
  m_summaryLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_table = new QTableWidget(0, 8, this);
  m_table->setHorizontalHeaderLabels({tr("Hypersection"), tr("Calls L"), tr("Calls R"), tr("Est. L"), tr("Est. R"),
                                      tr("Measured L"), tr("Measured R"), tr("Δ per step")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setToolTip(tr("Per step on each side; Δ is measured when both sides were run, else estimated"));
  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(m_summaryLabel);
  top->addWidget(m_table);
  top->setSizes({420, 800});
  auto* body = new QSplitter(Qt::Vertical, this);
  body->addWidget(top);
  auto* columns = new QSplitter(Qt::Horizontal, this);
  for (int side = 0; side < 2; ++side) {
    auto* column = new QWidget(columns);
    auto* box = new QVBoxLayout(column);
    box->setContentsMargins(0, 0, 0, 0);
    m_titles[side] = new QLabel(side == 0 ? tr("Left: nothing open") : tr("Right: nothing open"), column);
    auto* rows = new QSplitter(Qt::Vertical, column);
    m_graphs[side] = new GraphView(rows);
    m_graphs[side]->setColorMode(GraphColorMode::Hypersection);  // as the matched table
    m_timelines[side] = new TimelineView(rows);
    rows->setSizes({500, 500});  // graph and timeline share the height
    box->addWidget(m_titles[side]);
    box->addWidget(rows, 1);
    columns->addWidget(column);
  }
  body->addWidget(columns);
  body->setSizes({200, 700});
  layout->addWidget(body, 1);
  // Keep both sides in step: time range relative to each trace's start, graph zoom as is.
  for (int side = 0; side < 2; ++side) {
    TimelineView* from = m_timelines[side];
    TimelineView* to = m_timelines[1 - side];
    connect(from, &TimelineView::visibleRangeChanged, this, [this, from, to](double start, double duration) {
      if (m_syncing) return;
      m_syncing = true;
      to->setVisibleRange(to->data().startUs + (start - from->data().startUs), duration);
      m_syncing = false;
    });
    GraphView* graphTo = m_graphs[1 - side];
    // A node picked on one side picks the same hypersection on the other.
    connect(m_graphs[side], &GraphView::nodeSelected, this, [this, side, graphTo](const NodeDetails& node) {
      if (!node.hypersectionName.isEmpty()) graphTo->selectHypersection(matchingHypersection(side, node.hypersectionName));
    });
    connect(m_graphs[side], &GraphView::zoomChanged, this, [this, graphTo](double factor) {
      if (m_syncing) return;
      m_syncing = true;
      graphTo->setZoom(factor);
      m_syncing = false;
    });
  }
}

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
  if (m_pefs[0] && m_pefs[1]) m_summary = compareRuns(*m_pefs[0], m_traces[0].get(), *m_pefs[1], m_traces[1].get());
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
}

// The other side's name for the kernel `name` names on `side` (itself when unmatched).
QString CompareView::matchingHypersection(int side, const QString& name) const {
  if (!m_summary) return name;
  const auto key = m_summary->keyOf[side].find(name);
  if (key == m_summary->keyOf[side].end()) return name;
  for (const auto& [other, otherKey] : m_summary->keyOf[1 - side])
    if (otherKey == key->second) return other;
  return name;
}

void CompareView::fillTable() {
  const ColorIdentity& identity = m_graphs[0]->colorIdentity();
  m_table->setSortingEnabled(false);
  m_table->setRowCount(static_cast<int>(m_summary->rows.size()));
  auto cell = [this](int row, int column, const QString& text, double sortValue) {
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, sortValue);
    item->setTextAlignment(column == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(row, column, item);
    return item;
  };
  for (int r = 0; r < m_table->rowCount(); ++r) {
    const CompareRow& row = m_summary->rows[static_cast<size_t>(r)];
    cell(r, 0, row.label(), 0)->setData(Qt::DecorationRole, identity.hypersection(row.key));
    for (int side = 0; side < 2; ++side) {
      // A hypersection one side does not have: a dash, not "0 us".
      const bool has = row.calls[side] > 0;
      const QString none = QStringLiteral("–");
      cell(r, 1 + side, QLocale().toString(row.calls[side]), row.calls[side]);
      cell(r, 3 + side, has ? formatDuration(row.estUs[side]) : none, row.estUs[side]);
      cell(r, 5 + side, !row.measured ? QString() : has ? formatDuration(row.measuredUs[side]) : none, row.measuredUs[side]);
    }
    const double delta = row.deltaUs();
    QTableWidgetItem* change = cell(r, 7, (delta > 0 ? QStringLiteral("+") : QString()) + formatDuration(delta), delta);
    change->setForeground(delta > 0 ? QColor(0xb0, 0x20, 0x20) : QColor(0x20, 0x80, 0x30));
  }
  m_table->resizeColumnsToContents();
}

}  // namespace dfc::views
