#pragma once
// GraphRewriter: the one way passes remove, replace and insert nodes in the
// index-based IR. Edits are recorded against the original ids; finish()
// rebuilds a Graph with dense ids, fixing producers, node inputs, graph
// inputs/outputs, updates and initializers.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::passes {

class GraphRewriter {
 public:
  explicit GraphRewriter(const ir::Graph& graph);

  // The graph being edited (original ids; new values/nodes appended). Nodes
  // may be edited in place (attributes, inputs) through node().
  const ir::Graph& graph() const { return m_g; }
  ir::Node& node(ir::NodeId id) { return m_g.node(id); }
  const ir::Value& value(ir::ValueId id) const { return m_g.value(id); }

  void eraseNode(ir::NodeId id);
  bool isErased(ir::NodeId id) const { return m_erasedNodes.count(id) != 0; }
  // Drops a Const/Param/Input declaration (and its initializer) that nothing uses.
  void eraseValue(ir::ValueId id);
  // Every use of `from` (node inputs, graph outputs, update new values) reads `to`.
  void replaceAllUses(ir::ValueId from, ir::ValueId to);
  // `v` after the replacements recorded so far.
  ir::ValueId resolve(ir::ValueId v) const;

  // Graph outputs and update new values: passes keep these values (the PEF and
  // the runtime refer to them by name).
  bool isPinned(ir::ValueId v) const { return m_pinned.count(v) != 0; }
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
  Expected<ir::Graph> finish() const;

 private:
  std::vector<int> useCounts() const;
  std::pair<int64_t, int64_t> orderKey(ir::ValueId v) const;

  ir::Graph m_g;
  size_t m_origValues = 0, m_origNodes = 0;
  std::set<ir::NodeId> m_erasedNodes;
  std::set<ir::ValueId> m_erasedValues;
  std::map<ir::ValueId, ir::ValueId> m_replace;
  std::set<ir::ValueId> m_pinned;
  std::set<ir::ValueId> m_updateTargets;
  std::map<ir::ValueId, std::pair<int64_t, int64_t>> m_newValueKey;  // new value -> sort key
  std::map<ir::NodeId, ir::NodeId> m_newNodeAnchor;                  // new node -> anchor
  std::set<std::string> m_valueNames, m_nodeNames;
  int64_t m_seq = 0;
  bool m_changed = false;
};

}  // namespace dfc::passes
