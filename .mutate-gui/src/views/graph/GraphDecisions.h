#pragma once
// Mapping decisions from nodes picked in the graph (dfstudio's "Put in one
// section", "Cut before", "Assign to chip N"): plain decisions for a
// --mac-human-decision file (mapping/Decisions.h). An op node is named
// exactly; a folded hyperfunction by its scope glob ("h.3/*") when that names
// exactly its ops, else by its ops' names.
#include <QList>
#include <vector>

#include "graph/GraphData.h"
#include "mapping/Decisions.h"

namespace dfc::views {

enum class DecisionAction { Together, CutBefore, AssignChip };

// Decisions for `nodes` (GraphData indices; inputs are skipped). Together: one
// group per role among the picked ops (roles never share a section). Cut
// before: each op, or a folded node's first op of each role. Chip: all of them.
std::vector<mapping::Decision> decisionsForNodes(const GraphData& data, const ir::Graph& graph, const QList<int>& nodes,
                                                 DecisionAction action, int chip = 0);

}  // namespace dfc::views
