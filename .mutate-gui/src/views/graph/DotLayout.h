#pragma once
// One synchronous dot run over one group's items (never a whole big graph).
// Graphviz keeps global state and is not thread-safe: call this only from the
// thread that owns `gvc` (GraphLayoutWorker), never from two threads at once.
#include <QString>
#include <graphviz/gvc.h>
#include <optional>

#include "graph/GraphData.h"
#include "graph/GroupLayout.h"

namespace dfc::views {

// Node box size in points for a label; the view draws the same label inside it.
QSizeF nodeBoxSize(const GraphNode& node);

// Empty on failure (error set).
std::optional<GroupLayout> runDotLayout(GVC_t* gvc, const LocalGraph& graph, QString* error);

// A test hook: how many dot runs there were since the last reset, and the
// most nodes one of them laid out.
struct DotRunStats {
  int runs = 0;
  int maxNodes = 0;
};
DotRunStats dotRunStats();
void resetDotRunStats();

}  // namespace dfc::views
