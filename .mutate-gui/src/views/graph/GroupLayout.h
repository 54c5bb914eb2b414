#pragma once
// One group's layout (DESIGN §13): a value in the group's own coordinates
// (points, y down, origin at the top left of its content), computed once per
// structure and shared by every group of that structure.
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <memory>
#include <vector>

#include "graph/GraphLayout.h"

namespace dfc::views {

// What one Graphviz run sees: boxes of fixed sizes and the edges between them.
struct LocalGraph {
  std::vector<QSizeF> sizes;
  std::vector<bool> round;                 // drawn as an ellipse (an input)
  std::vector<std::pair<int, int>> edges;  // item indices
  std::vector<int> top, bottom;            // items kept on the first / last rank (ports)
  std::vector<std::vector<int>> sameRank;  // items kept on one rank (a use and its stubs)
};

struct GroupLayout {
  QSizeF size;                    // of the content
  std::vector<QRectF> items;      // one per LocalGraph size
  std::vector<LayoutEdge> edges;  // one per LocalGraph edge (from/to: items)
};

using SharedGroupLayout = std::shared_ptr<const GroupLayout>;

}  // namespace dfc::views
