#pragma once
// One synchronous dot run. Graphviz keeps global state and is not
// thread-safe: call this only from the thread that owns `gvc`
// (GraphLayoutWorker), never from two threads at once.
#include <graphviz/gvc.h>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"

namespace dfc::views {

// Node box size in points for a label; the view draws the same label inside it.
QSizeF nodeBoxSize(const GraphNode& node);

GraphLayout runDotLayout(GVC_t* gvc, const GraphData& data);

}  // namespace dfc::views
