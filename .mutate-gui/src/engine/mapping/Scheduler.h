#pragma once
// Scheduler: orders the section calls of one step. A section runs after every
// section that produces a value it reads; among ready sections, forward
// before backward before optimizer, then the earliest nodes first (Kahn's
// algorithm with that priority), so the order is deterministic.
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::mapping {

// Section ids in call order; an error names two sections that depend on each other.
Expected<std::vector<int>> scheduleSections(const ir::Graph& graph, const std::vector<partition::Section>& sections);

}  // namespace dfc::mapping
