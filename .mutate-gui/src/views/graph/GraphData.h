#pragma once
// Plain, Qt-value data the graph view draws: one node per IR operation (or per
// collapsed hyperfunction on big graphs) plus small nodes for runtime inputs.
// Params and constants are left out: they double the node count and carry no
// dataflow a user follows. A value used all over the graph (the learning
// rate, rotary tables, a shared mask) is drawn as a small stub beside each
// use instead of one edge from its producer to every user across the view.
#include <QString>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::views {

enum class GraphNodeKind { Op, Input, Collapsed, Stub };

struct GraphNode {
  int id = 0;                // index into GraphData::nodes
  GraphNodeKind kind = GraphNodeKind::Op;
  ir::NodeId irNode = ir::kNoNode;  // -1 for inputs and collapsed groups
  QString name;              // IR node / value name, or the hyperfunction
  QString op;                // "conv2d"; "input" for inputs
  QString label;             // what the view prints: op + short name
  int section = -1;          // plan section id, -1 if none
  int hypersection = -1;
  QString hypersectionName;  // its unique name ("hs1_h.0"), "" if none
  QString hyperfunction;     // scope path; "" = top level
  QString role;              // forward / backward / optimizer; a folded node: its most common
  int opCount = 1;           // ops folded into a collapsed node
  std::vector<ir::NodeId> members;  // collapsed: the IR ops folded into it
  int stubSource = -1;              // a stub: the node whose value it stands for
  // A folded node's contents, in ops: per role, per hypersection name, and
  // its sections (a plain op has one entry in each, or none).
  std::map<QString, int> roleOps;
  std::map<QString, int> hypersectionOps;
  std::set<int> sections;
};

struct GraphEdge {
  int from = 0;              // GraphData::nodes index
  int to = 0;
};

struct GraphData {
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;  // unique (from, to) pairs, no self loops
  int sectionCount = 0;
  bool collapsed = false;        // true if hyperfunctions were folded into nodes
  std::set<QString> collapsedScopes;  // as applied
  std::set<QString> scopes;           // every hyperfunction scope of the graph (with parents)
  std::map<QString, int> hypersectionCalls;  // calls per step of each hypersection (the schedule)
};

struct GraphDataOptions {
  // Above this many ops, nodes of one top-level hyperfunction fold into one
  // node: dot on thousands of nodes takes minutes and shows nothing readable.
  // 400: the gpt2 training graph (~930 ops) opens folded into its layers.
  int collapseAbove = 400;
  // Scopes shown folded into one node each; a folded scope folds its nested
  // scopes too ("h.3" takes "h.3/attn"). Unset: every top-level hyperfunction
  // folds when the graph has more than collapseAbove ops.
  std::optional<std::set<QString>> collapsedScopes;
  // A value read in at least this many top-level hyperfunctions besides its
  // own is drawn as a stub at each use there (0: never).
  int stubAboveScopes = 3;
};

// A role's name as data (roleText) and as the views show it, translated
// (roleDisplayName): the one place roles become text in the views.
QString roleText(ir::NodeRole role);
QString roleDisplayName(const QString& role);

// The top-level hyperfunctions of a graph ("h.0", "h.1", ...).
std::set<QString> topLevelScopes(const ir::Graph& graph);

// Replaces the edges of widely used values by stubs (GraphDataOptions::stubAboveScopes).
void stubWidelyUsedValues(GraphData& data, int minScopes);

GraphData buildGraphData(const ir::Graph& graph, const partition::Plan& plan,
                         const GraphDataOptions& options = {});

}  // namespace dfc::views
