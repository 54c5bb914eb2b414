// MainWindow: the Memory and Roofline screens hand their picks to the rest of
// the window: a tensor selects the operator making it in the graph and its
// lifetime on a linked run's timeline; a roofline point selects its section.
#include <QStatusBar>
#include <QTableWidget>

#include "MainWindow.h"
#include "graph/GraphView.h"
#include "memory/CallTimes.h"
#include "memory/MemoryPanel.h"
#include "roofline/RooflinePanel.h"
#include "schedule/SchedulePanel.h"
#include "selection/SelectionState.h"
#include "timeline/TimelineView.h"

namespace dfc::studio {
namespace {

// The graph node showing IR node `producer`: its own, else the folded node holding it.
int graphNodeOf(const views::GraphView& view, ir::NodeId producer) {
  if (!view.hasLayout()) return -1;
  const auto& nodes = view.graph().nodes;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].irNode == producer) return static_cast<int>(i);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (ir::NodeId member : nodes[i].members)
      if (member == producer) return static_cast<int>(i);
  return -1;
}

}  // namespace

void MainWindow::connectAnalysisScreens() {
  connect(m_memory, &views::MemoryPanel::tensorActivated, this, &MainWindow::selectTensorProducer);
  // The schedule's row follows, and through it the shared selection (the graph outlines the section).
  connect(m_roofline, &views::RooflinePanel::sectionClicked, m_schedule, &views::SchedulePanel::selectSection);
  connect(m_selection, &views::SelectionState::sectionChanged, m_roofline,
          [this](int section) { m_roofline->setSelectedSection(section); });
}

void MainWindow::selectTensorProducer(int producerNode, int section, const QString& tensor) {
  const int node = producerNode == ir::kNoNode ? -1 : graphNodeOf(*m_graph, producerNode);
  if (node >= 0)
    m_graph->selectNode(node);  // its details, and its section through the shared selection
  else if (section >= 0)
    m_schedule->selectSection(section);
  const views::MemoryViewData& memory = m_memory->data();
  const int row = m_memory->table()->currentRow();
  if (!m_timeline->isLinked() || !m_timeline->data().trace || row < 0) {
    statusBar()->showMessage(
        tr("%1: made by the selected operator; open its run to see its lifetime on the timeline").arg(tensor), 8000);
    return;
  }
  const analysis::LiveTensor& live = memory.timeline.tensors.at(m_memory->listedTensors().at(static_cast<size_t>(row)));
  if (const auto range = views::callsTimeRange(*m_timeline->data().trace, memory.callSections, live.first, live.last)) {
    m_selection->setTimeRange(*range);
    statusBar()->showMessage(
        tr("%1: live from call %2 to %3, selected on the timeline").arg(tensor).arg(live.first).arg(live.last), 8000);
  }
}

}  // namespace dfc::studio
