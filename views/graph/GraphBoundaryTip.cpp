// GraphView: the tooltip of a section boundary edge, the recorded reason the
// mapper cut there (partition/CutReason.h, `dfc inspect --why`).
#include "analysis/SectionBoundaries.h"
#include "graph/GraphCanvas.h"
#include "graph/GraphView.h"

namespace dfc::views {

QString GraphView::boundaryToolTip(int layoutEdge) const {
  const GraphData* shown = m_canvas->data();
  const GraphLayout* layout = m_canvas->layout();
  if (!shown || !layout || !m_plan || layoutEdge < 0 || static_cast<size_t>(layoutEdge) >= layout->edges.size())
    return {};
  const LayoutEdge& e = layout->edges[static_cast<size_t>(layoutEdge)];
  const int from = shown->nodes[static_cast<size_t>(e.from)].section;
  const int to = shown->nodes[static_cast<size_t>(e.to)].section;
  if (from < 0 || to < 0 || from == to || static_cast<size_t>(to) >= m_plan->sections.size()) return {};
  const partition::Section& after = m_plan->sections[static_cast<size_t>(to)];
  const QString reason = QString::fromStdString(analysis::describeCut(after.cut));
  const QString fromName = QString::fromStdString(m_plan->sections[static_cast<size_t>(from)].name);
  const QString toName = QString::fromStdString(after.name);
  // The reason is recorded against the section before in id order, which is
  // not always the edge's source (a skip connection from further back).
  if (to == 0) return tr("Section boundary %1 → %2: %2 is the first section").arg(fromName, toName);
  const QString before = QString::fromStdString(m_plan->sections[static_cast<size_t>(to - 1)].name);
  if (before == fromName) return tr("Section boundary %1 → %2\nWhy %2 starts here: %3").arg(fromName, toName, reason);
  return tr("Section boundary %1 → %2\nWhy %2 starts apart from %3 (the section before it): %4")
      .arg(fromName, toName, before, reason);
}

}  // namespace dfc::views
