#pragma once
// GraphRewriter: the one way passes remove, replace and insert nodes in the
// index-based IR. Edits are recorded against the original ids; finish()
// rebuilds a Graph with dense ids, fixing producers, node inputs, graph
// inputs/outputs, updates and initializers.
//
// Bookkeeping is flat (vectors indexed by id) so a pass costs O(nodes + values):
// passes move the graph in and, when nothing changed, release() hands it back
// without a rebuild.
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"
#include "support/NameSet.h"

namespace dfc::passes {

class GraphRewriter {
 public:
  explicit GraphRewriter(const ir::Graph& graph);  // edits a copy
  explicit GraphRewriter(ir::Graph&& graph);       // takes the graph over (no copy)

  // The graph being edited (original ids; new values/nodes appended). Nodes
  // may be edited in place (attributes, inputs) through node().
  const ir::Graph& graph() const { return m_g; }
  ir::Node& node(ir::NodeId id) { return m_g.node(id); }
  const ir::Value& value(ir::ValueId id) const { return m_g.value(id); }

  void eraseNode(ir::NodeId id);
  bool isErased(ir::NodeId id) const {
    return id >= 0 && static_cast<size_t>(id) < m_erasedNodes.size() && m_erasedNodes[static_cast<size_t>(id)];
  }
  // Drops a Const/Param/Input declaration (and its initializer) that nothing uses.
  void eraseValue(ir::ValueId id);
  // Every use of `from` (node inputs, graph outputs, update new values) reads `to`.
  void replaceAllUses(ir::ValueId from, ir::ValueId to);
  // `v` after the replacements recorded so far.
  ir::ValueId resolve(ir::ValueId v) const {
    while (v >= 0 && static_cast<size_t>(v) < m_replace.size() && m_replace[static_cast<size_t>(v)] != ir::kNoValue)
      v = m_replace[static_cast<size_t>(v)];
    return v;
  }

  // Graph outputs and update new values: passes keep these values (the PEF and
  // the runtime refer to them by name).
  bool isPinned(ir::ValueId v) const { return flagged(m_pinned, v); }
  // A Const whose data never changes (not the target of a state update).
  bool isConstant(ir::ValueId v) const;
  const ir::Tensor* constData(ir::ValueId v) const;  // null unless isConstant

  // New values are placed before `anchor`'s outputs in the rebuilt graph
  // (kNoNode: at the end); new nodes run right before `anchor`.
  ir::ValueId addConst(ir::NodeId anchor, std::string name, ir::Tensor data);
  ir::ValueId addValue(ir::NodeId anchor, std::string name, ir::TensorType type);
  ir::NodeId insertNode(ir::NodeId anchor, ir::Node node);
  // `base`, or `base.1`, `base.2`... not used by any value/node so far.
  std::string uniqueValueName(const std::string& base) const;
  std::string uniqueNodeName(const std::string& base) const;

  // Erases nodes among `candidates` (and, transitively, their producers) whose
  // outputs nobody reads any more. Returns how many were erased.
  int eraseDeadNodes(std::set<ir::NodeId> candidates);

  bool changed() const { return m_changed; }
  // The rebuilt graph; an internal error if a kept node reads a removed value.
  // Moves the edited graph's contents out: call once, as the last thing.
  Expected<ir::Graph> finish();
  // The edited graph as it stands, without rebuilding (for a pass that changed
  // nothing). Call once, as the last thing.
  ir::Graph release() { return std::move(m_g); }
  // The end of a pass: `g` becomes the rebuilt graph (true) when `changed`,
  // else the graph as it stands, without rebuilding (false). Call once, last.
  Expected<bool> commitTo(ir::Graph& g, bool changed);
  Expected<bool> commitTo(ir::Graph& g) { return commitTo(g, m_changed); }

 private:
  static bool flagged(const std::vector<char>& flags, int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < flags.size() && flags[static_cast<size_t>(id)];
  }
  void init();
  void ensureNames() const;
  std::vector<int> useCounts() const;
  std::pair<int64_t, int64_t> orderKey(ir::ValueId v) const;

  // finish(), step by step: the order of the rebuilt nodes and values, then
  // values, nodes and the graph's inputs/outputs/updates moved into `out`.
  struct Remap {  // old value id -> rebuilt id, through replacements
    const GraphRewriter& rw;
    std::vector<ir::ValueId> newId;  // by old id; kNoValue: removed
    ir::ValueId operator()(ir::ValueId v) const;
    Error removed(ir::ValueId resolved, const std::string& where) const;
  };
  std::vector<ir::NodeId> rebuiltNodeOrder() const;
  std::vector<ir::ValueId> rebuiltValueOrder(const std::vector<ir::NodeId>& order) const;
  Status moveValuesInto(const std::vector<ir::ValueId>& live, const Remap& remap, ir::Graph& out);
  Status moveNodesInto(const std::vector<ir::NodeId>& order, const Remap& remap, ir::Graph& out);
  Status mapInterfaceInto(const Remap& remap, ir::Graph& out) const;

  ir::Graph m_g;
  size_t m_origValues = 0, m_origNodes = 0;
  std::vector<char> m_erasedNodes;              // by node id
  std::vector<char> m_erasedValues;             // by value id
  std::vector<ir::ValueId> m_replace;           // by value id; kNoValue: not replaced
  std::vector<char> m_pinned, m_updateTargets;  // by original value id
  std::vector<ir::ValueId> m_pinnedIds, m_updateTargetIds;     // each once, ascending
  std::vector<std::pair<int64_t, int64_t>> m_newValueKey;     // by id - m_origValues: sort key
  std::vector<ir::NodeId> m_newNodeAnchor;                     // by id - m_origNodes: anchor
  // Every value/node name so far; built on first use (most passes never ask).
  mutable support::StringSet m_valueNames, m_nodeNames;
  mutable bool m_namesBuilt = false;
  int64_t m_seq = 0;
  bool m_changed = false;
};

}  // namespace dfc::passes
