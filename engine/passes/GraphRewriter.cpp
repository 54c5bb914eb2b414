#include "passes/GraphRewriter.h"

#include <algorithm>
#include <limits>

namespace dfc::passes {

using ir::NodeId;
using ir::ValueId;

GraphRewriter::GraphRewriter(const ir::Graph& graph)
    : m_g(graph), m_origValues(graph.values.size()), m_origNodes(graph.nodes.size()) {
  for (ValueId v : graph.outputs) m_pinned.insert(v);
  for (const ir::StateUpdate& u : graph.updates) {
    m_pinned.insert(u.newValue);
    m_updateTargets.insert(u.target);
  }
  for (const ir::Value& v : graph.values) m_valueNames.insert(v.name);
  for (const ir::Node& n : graph.nodes) m_nodeNames.insert(n.name);
}

void GraphRewriter::eraseNode(NodeId id) {
  if (m_erasedNodes.insert(id).second) m_changed = true;
}

void GraphRewriter::eraseValue(ValueId id) {
  if (m_erasedValues.insert(id).second) m_changed = true;
}

void GraphRewriter::replaceAllUses(ValueId from, ValueId to) {
  to = resolve(to);
  if (from == to) return;
  m_replace[from] = to;
  m_changed = true;
}

ValueId GraphRewriter::resolve(ValueId v) const {
  for (auto it = m_replace.find(v); it != m_replace.end(); it = m_replace.find(v)) v = it->second;
  return v;
}

bool GraphRewriter::isConstant(ValueId v) const {
  return m_g.value(v).kind == ir::ValueKind::Const && !m_updateTargets.count(v) && m_g.initializers.count(v);
}

const ir::Tensor* GraphRewriter::constData(ValueId v) const {
  if (!isConstant(v)) return nullptr;
  const ir::Tensor& t = m_g.initializers.at(v);
  // Deferred consts (optimizer state recipes) are not folded: they would become data.
  return t.empty() || t.isDeferred() ? nullptr : &t;
}

std::string GraphRewriter::uniqueValueName(const std::string& base) const {
  std::string name = base;
  for (int i = 1; m_valueNames.count(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

std::string GraphRewriter::uniqueNodeName(const std::string& base) const {
  std::string name = base;
  for (int i = 1; m_nodeNames.count(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

// New values sort right before the first output of the (original) anchor node.
ValueId GraphRewriter::addValue(NodeId anchor, std::string name, ir::TensorType type) {
  while (anchor != ir::kNoNode && static_cast<size_t>(anchor) >= m_origNodes) anchor = m_newNodeAnchor.at(anchor);
  int64_t pos = static_cast<int64_t>(m_origValues);
  if (anchor != ir::kNoNode && !m_g.node(anchor).outputs.empty()) {
    const auto& outs = m_g.node(anchor).outputs;
    pos = *std::min_element(outs.begin(), outs.end());
  }
  auto id = static_cast<ValueId>(m_g.values.size());
  m_valueNames.insert(name);
  ir::Value v;
  v.id = id;
  v.name = std::move(name);
  v.type = std::move(type);
  m_g.values.push_back(std::move(v));
  m_newValueKey[id] = {pos, m_seq++};
  m_changed = true;
  return id;
}

ValueId GraphRewriter::addConst(NodeId anchor, std::string name, ir::Tensor data) {
  ValueId id = addValue(anchor, std::move(name), data.type());
  m_g.value(id).kind = ir::ValueKind::Const;
  m_g.initializers[id] = std::move(data);
  return id;
}

NodeId GraphRewriter::insertNode(NodeId anchor, ir::Node node) {
  auto id = static_cast<NodeId>(m_g.nodes.size());
  node.id = id;
  m_nodeNames.insert(node.name);
  for (ValueId o : node.outputs) m_g.value(o).producer = id;
  m_g.nodes.push_back(std::move(node));
  m_newNodeAnchor[id] = anchor;
  m_changed = true;
  return id;
}

std::pair<int64_t, int64_t> GraphRewriter::orderKey(ValueId v) const {
  auto it = m_newValueKey.find(v);
  if (it != m_newValueKey.end()) return it->second;
  return {v, std::numeric_limits<int64_t>::max()};
}

std::vector<int> GraphRewriter::useCounts() const {
  std::vector<int> uses(m_g.values.size(), 0);
  for (const ir::Node& n : m_g.nodes) {
    if (isErased(n.id)) continue;
    for (ValueId in : n.inputs) ++uses[static_cast<size_t>(resolve(in))];
  }
  for (ValueId v : m_pinned) ++uses[static_cast<size_t>(resolve(v))];
  for (ValueId v : m_updateTargets) ++uses[static_cast<size_t>(v)];
  return uses;
}

int GraphRewriter::eraseDeadNodes(std::set<NodeId> candidates) {
  std::vector<int> uses = useCounts();
  int erased = 0;
  while (!candidates.empty()) {
    NodeId id = *candidates.begin();
    candidates.erase(candidates.begin());
    if (isErased(id)) continue;
    const ir::Node& n = m_g.node(id);
    bool dead = std::all_of(n.outputs.begin(), n.outputs.end(),
                            [&](ValueId o) { return uses[static_cast<size_t>(o)] == 0; });
    if (!dead) continue;
    eraseNode(id);
    ++erased;
    for (ValueId in : n.inputs) {
      ValueId r = resolve(in);
      if (--uses[static_cast<size_t>(r)] == 0 && m_g.value(r).producer != ir::kNoNode)
        candidates.insert(m_g.value(r).producer);
    }
  }
  return erased;
}

Expected<ir::Graph> GraphRewriter::finish() const {
  // Node order: inserted nodes right before their anchor, in creation order.
  std::map<NodeId, std::vector<NodeId>> before;
  for (const auto& [id, anchor] : m_newNodeAnchor) {
    NodeId root = anchor;
    while (root != ir::kNoNode && static_cast<size_t>(root) >= m_origNodes) root = m_newNodeAnchor.at(root);
    before[root].push_back(id);
  }
  std::vector<NodeId> order;
  auto emitBefore = [&](NodeId anchor) {
    auto it = before.find(anchor);
    if (it == before.end()) return;
    for (NodeId n : it->second)
      if (!isErased(n)) order.push_back(n);
  };
  for (size_t i = 0; i < m_origNodes; ++i) {
    auto id = static_cast<NodeId>(i);
    emitBefore(id);
    if (!isErased(id)) order.push_back(id);
  }
  emitBefore(ir::kNoNode);

  // Live values: declarations not erased, and intermediates a kept node produces.
  std::vector<NodeId> producer(m_g.values.size(), ir::kNoNode);
  for (NodeId n : order)
    for (ValueId o : m_g.node(n).outputs) producer[static_cast<size_t>(o)] = n;
  std::vector<ValueId> live;
  for (size_t i = 0; i < m_g.values.size(); ++i) {
    const ir::Value& v = m_g.values[i];
    bool keep = v.kind == ir::ValueKind::Intermediate ? producer[i] != ir::kNoNode : !m_erasedValues.count(v.id);
    if (keep) live.push_back(v.id);
  }
  std::stable_sort(live.begin(), live.end(), [&](ValueId a, ValueId b) { return orderKey(a) < orderKey(b); });
  std::vector<ValueId> newId(m_g.values.size(), ir::kNoValue);
  for (size_t i = 0; i < live.size(); ++i) newId[static_cast<size_t>(live[i])] = static_cast<ValueId>(i);

  auto map = [&](ValueId v, const std::string& where) -> Expected<ValueId> {
    ValueId r = resolve(v);
    if (r < 0 || static_cast<size_t>(r) >= newId.size() || newId[static_cast<size_t>(r)] == ir::kNoValue)
      return internalError(where + " reads removed value '" + (r >= 0 && static_cast<size_t>(r) < m_g.values.size()
                                                                    ? m_g.values[static_cast<size_t>(r)].name
                                                                    : std::to_string(r)) + "'");
    return newId[static_cast<size_t>(r)];
  };

  ir::Graph out;
  out.name = m_g.name;
  std::set<std::string> names;
  for (ValueId v : live) {
    ir::Value nv = m_g.value(v);
    nv.id = newId[static_cast<size_t>(v)];
    nv.producer = ir::kNoNode;
    if (!names.insert(nv.name).second) return internalError("two values named '" + nv.name + "' after rewriting");
    out.values.push_back(std::move(nv));
    if (auto it = m_g.initializers.find(v); it != m_g.initializers.end()) out.initializers[newId[static_cast<size_t>(v)]] = it->second;
  }
  names.clear();
  for (NodeId old : order) {
    ir::Node n = m_g.node(old);
    n.id = static_cast<NodeId>(out.nodes.size());
    if (!names.insert(n.name).second) return internalError("two nodes named '" + n.name + "' after rewriting");
    for (ValueId& in : n.inputs) {
      auto m = map(in, "node '" + n.name + "'");
      if (!m) return m.error();
      in = *m;
    }
    for (ValueId& o : n.outputs) {
      o = newId[static_cast<size_t>(o)];
      out.values[static_cast<size_t>(o)].producer = n.id;
    }
    out.nodes.push_back(std::move(n));
  }
  for (ValueId v : m_g.inputs)
    if (newId[static_cast<size_t>(v)] != ir::kNoValue) out.inputs.push_back(newId[static_cast<size_t>(v)]);
  for (ValueId v : m_g.outputs) {
    auto m = map(v, "graph output");
    if (!m) return m.error();
    out.outputs.push_back(*m);
  }
  for (const ir::StateUpdate& u : m_g.updates) {
    auto t = map(u.target, "update");
    auto nv = map(u.newValue, "update");
    if (!t) return t.error();
    if (!nv) return nv.error();
    out.updates.push_back({*t, *nv});
  }
  return out;
}

}  // namespace dfc::passes
