#pragma once
// The group tree hierarchical layout works on (DESIGN §13): every unfolded
// hyperfunction of a GraphData is a group holding its items, the nodes
// directly in it and its child groups; an edge lives in the lowest group that
// holds both ends, between the two items there that contain them. A group of
// more items than one Graphviz run may take is cut into synthetic parts (runs
// of items in graph order), so no run ever exceeds the bound. An edge that
// enters or leaves a group passes through one of the group's ports, small
// points its own layout places at its top or bottom and routes from or to the
// item inside, so the edge finds its way in among the group's nodes.
#include <QString>
#include <vector>

#include "graph/GraphData.h"

namespace dfc::views {

struct GroupItem {
  int node = -1;   // a GraphData node, or
  int group = -1;  // a child group
};

// Where an edge crosses a group's frame. Data flowing down the stack enters
// at the top and leaves at the bottom; flowing up (a gradient from the next
// layer), it enters at the bottom and leaves at the top.
enum class Port { InAbove, InBelow, OutBelow, OutAbove };
constexpr int kPortKinds = 4;
// Ports at the bottom are sinks of their group's layout: their edge is laid
// out item -> port, so an edge entering there runs the other way.
constexpr bool portAtBottom(Port p) { return p == Port::InBelow || p == Port::OutBelow; }

struct LayoutGroup {
  QString scope;                            // "layers.3/mlp"; "" for the root; a part: its group's scope
  int parent = -1;                          // -1 for the root (group 0)
  int itemInParent = -1;                    // this group's index among its parent's items
  bool synthetic = false;                   // a part of an oversized group: no frame, not foldable
  std::vector<GroupItem> items;             // in graph order
  std::vector<std::pair<int, int>> edges;   // (item, item), sorted, unique
  std::vector<std::pair<Port, int>> ports;  // (port, item inside), sorted, unique
};

struct GroupTree {
  std::vector<LayoutGroup> groups;  // [0] is the root
  std::vector<int> nodeGroup;       // GraphData node -> the group holding it
  std::vector<int> nodeItem;        // ... its index among that group's items
  struct Route {
    int group = 0;  // where the edge lives
    int edge = 0;   // index into that group's edges
  };
  std::vector<Route> edgeRoutes;       // one per GraphData edge
  std::vector<int> postOrder() const;  // children before their parents
  std::vector<int> preOrder() const;   // parents before their children, each level in graph order
  // Whether an edge's route runs up the stack (its source's item comes after its target's).
  bool runsUp(int edge) const;
};

// The scope a node is drawn in: an op's (or a stub's) hyperfunction, the
// parent scope of a folded hyperfunction, the top level for inputs.
QString ownerScope(const GraphNode& node);

// maxItems >= 2: the most items a group (so one dot run) may hold.
GroupTree buildGroupTree(const GraphData& data, int maxItems);

}  // namespace dfc::views
