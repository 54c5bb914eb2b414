#include "compare/CompareView.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "graph/GraphView.h"
#include "timeline/TimelineData.h"
#include "timeline/TimelineView.h"

namespace dfc::views {

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_summaryLabel = new QLabel(tr("Open two compiles or runs to compare them"), this);
  m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summaryLabel->setWordWrap(true);
  layout->addWidget(m_summaryLabel);
  auto* columns = new QSplitter(Qt::Horizontal, this);
  for (int side = 0; side < 2; ++side) {
    auto* column = new QWidget(columns);
    auto* box = new QVBoxLayout(column);
    box->setContentsMargins(0, 0, 0, 0);
    m_titles[side] = new QLabel(side == 0 ? tr("Left: nothing open") : tr("Right: nothing open"), column);
    auto* rows = new QSplitter(Qt::Vertical, column);
    m_graphs[side] = new GraphView(rows);
    m_timelines[side] = new TimelineView(rows);
    rows->setSizes({500, 500});  // graph and timeline share the height
    box->addWidget(m_titles[side]);
    box->addWidget(rows, 1);
    columns->addWidget(column);
  }
  layout->addWidget(columns, 1);
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

void CompareView::refreshSummary() {
  if (!m_pefs[0] || !m_pefs[1]) return;
  m_summary = compareRuns(*m_pefs[0], m_traces[0].get(), *m_pefs[1], m_traces[1].get());
  m_summaryLabel->setText(m_summary->lines().join(QLatin1Char('\n')));
}

}  // namespace dfc::views
