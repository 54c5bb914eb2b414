#pragma once
// Lays a GraphData out group by group (DESIGN §13): every unfolded
// hyperfunction is laid out by itself with its child groups as boxes, one dot
// run of at most kMaxNodesPerDotRun nodes; groups of one structure (same
// items, ops and edges in the same order, so every identical decoder layer)
// share one layout, laid out once; the parent places its children's boxes and
// the composition bottom-up gives every node its place. Layouts are cached by
// structure and box sizes, so a fold or unfold lays out again only the groups
// whose contents changed: the one unfolded and its ancestors.
#include <graphviz/gvc.h>

#include <functional>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"
#include "graph/LayoutCache.h"

namespace dfc::views {

// Dot on a few hundred nodes takes a fraction of a second; a group with more
// items is cut into parts (GroupTree), so no single run takes long and a
// cancel is honoured between runs.
constexpr int kMaxNodesPerDotRun = 250;

struct LayoutHooks {
  std::function<bool()> cancelled;                    // asked before every dot run
  std::function<void(int done, int total)> progress;  // structures laid out of all
};

// On cancel: an empty layout with `cancelled` set.
GraphLayout layoutHierarchically(const GraphData& data, GVC_t* gvc, LayoutCache& cache, const LayoutHooks& hooks = {});

}  // namespace dfc::views
