#include "passes/GraphRewriter.h"

#include <algorithm>
#include <limits>

#include "support/NameSet.h"

namespace dfc::passes {

using ir::NodeId;
using ir::ValueId;

namespace {

// Sets flags[id], growing the vector for ids past its end; true if newly set.
bool setFlag(std::vector<char>& flags, int32_t id) {
  if (id < 0) return false;
  auto i = static_cast<size_t>(id);
  if (i >= flags.size()) flags.resize(i + 1, 0);
  if (flags[i]) return false;
  flags[i] = 1;
  return true;
}

}  // namespace

GraphRewriter::GraphRewriter(const ir::Graph& graph) : m_g(graph) { init(); }

GraphRewriter::GraphRewriter(ir::Graph&& graph) : m_g(std::move(graph)) { init(); }

void GraphRewriter::init() {
  m_origValues = m_g.values.size();
  m_origNodes = m_g.nodes.size();
  m_erasedNodes.assign(m_origNodes, 0);
  m_erasedValues.assign(m_origValues, 0);
  m_replace.assign(m_origValues, ir::kNoValue);
  m_pinned.assign(m_origValues, 0);
  m_updateTargets.assign(m_origValues, 0);
  for (ValueId v : m_g.outputs)
    if (setFlag(m_pinned, v)) m_pinnedIds.push_back(v);
  for (const ir::StateUpdate& u : m_g.updates) {
    if (setFlag(m_pinned, u.newValue)) m_pinnedIds.push_back(u.newValue);
    if (setFlag(m_updateTargets, u.target)) m_updateTargetIds.push_back(u.target);
  }
  std::sort(m_pinnedIds.begin(), m_pinnedIds.end());
  std::sort(m_updateTargetIds.begin(), m_updateTargetIds.end());
}

void GraphRewriter::ensureNames() const {
  if (m_namesBuilt) return;
  m_valueNames = support::StringSet(m_g.values.size() + 64);
  m_nodeNames = support::StringSet(m_g.nodes.size() + 64);
  for (const ir::Value& v : m_g.values) m_valueNames.insert(v.name);
  for (const ir::Node& n : m_g.nodes) m_nodeNames.insert(n.name);
  m_namesBuilt = true;
}

void GraphRewriter::eraseNode(NodeId id) {
  if (setFlag(m_erasedNodes, id)) m_changed = true;
}

void GraphRewriter::eraseValue(ValueId id) {
  if (setFlag(m_erasedValues, id)) m_changed = true;
}

void GraphRewriter::replaceAllUses(ValueId from, ValueId to) {
  to = resolve(to);
  if (from == to || from < 0) return;
  if (static_cast<size_t>(from) >= m_replace.size()) m_replace.resize(static_cast<size_t>(from) + 1, ir::kNoValue);
  m_replace[static_cast<size_t>(from)] = to;
  m_changed = true;
}

bool GraphRewriter::isConstant(ValueId v) const {
  return m_g.value(v).kind == ir::ValueKind::Const && !flagged(m_updateTargets, v) && m_g.initializers.count(v);
}

const ir::Tensor* GraphRewriter::constData(ValueId v) const {
  if (m_g.value(v).kind != ir::ValueKind::Const || flagged(m_updateTargets, v)) return nullptr;
  auto it = m_g.initializers.find(v);
  // Deferred consts (optimizer state recipes) are not folded: they would become data.
  if (it == m_g.initializers.end() || it->second.empty() || it->second.isDeferred()) return nullptr;
  return &it->second;
}

std::string GraphRewriter::uniqueValueName(const std::string& base) const {
  ensureNames();
  std::string name = base;
  for (int i = 1; m_valueNames.contains(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

std::string GraphRewriter::uniqueNodeName(const std::string& base) const {
  ensureNames();
  std::string name = base;
  for (int i = 1; m_nodeNames.contains(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

// New values sort right before the first output of the (original) anchor node.
ValueId GraphRewriter::addValue(NodeId anchor, std::string name, ir::TensorType type) {
  while (anchor != ir::kNoNode && static_cast<size_t>(anchor) >= m_origNodes)
    anchor = m_newNodeAnchor.at(static_cast<size_t>(anchor) - m_origNodes);
  int64_t pos = static_cast<int64_t>(m_origValues);
  if (anchor != ir::kNoNode && !m_g.node(anchor).outputs.empty()) {
    const auto& outs = m_g.node(anchor).outputs;
    pos = *std::min_element(outs.begin(), outs.end());
  }
  auto id = static_cast<ValueId>(m_g.values.size());
  if (m_namesBuilt) m_valueNames.insert(name);
  ir::Value v;
  v.id = id;
  v.name = std::move(name);
  v.type = std::move(type);
  m_g.values.push_back(std::move(v));
  m_erasedValues.resize(m_g.values.size(), 0);
  m_replace.resize(std::max(m_replace.size(), m_g.values.size()), ir::kNoValue);
  m_newValueKey.resize(m_g.values.size() - m_origValues);
  m_newValueKey.back() = {pos, m_seq++};
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
  if (m_namesBuilt) m_nodeNames.insert(node.name);
  for (ValueId o : node.outputs) m_g.value(o).producer = id;
  m_g.nodes.push_back(std::move(node));
  m_erasedNodes.resize(std::max(m_erasedNodes.size(), m_g.nodes.size()), 0);
  m_newNodeAnchor.push_back(anchor);
  m_changed = true;
  return id;
}

std::pair<int64_t, int64_t> GraphRewriter::orderKey(ValueId v) const {
  if (v >= 0 && static_cast<size_t>(v) >= m_origValues) return m_newValueKey[static_cast<size_t>(v) - m_origValues];
  return {v, std::numeric_limits<int64_t>::max()};
}

std::vector<int> GraphRewriter::useCounts() const {
  std::vector<int> uses(m_g.values.size(), 0);
  for (const ir::Node& n : m_g.nodes) {
    if (isErased(n.id)) continue;
    for (ValueId in : n.inputs) ++uses[static_cast<size_t>(resolve(in))];
  }
  for (ValueId v : m_pinnedIds) ++uses[static_cast<size_t>(resolve(v))];
  for (ValueId v : m_updateTargetIds) ++uses[static_cast<size_t>(v)];
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

// Node order: inserted nodes right before their (original) anchor, in creation
// order; those anchored at kNoNode at the end.
std::vector<NodeId> GraphRewriter::rebuiltNodeOrder() const {
  std::vector<std::pair<NodeId, NodeId>> inserted;  // (root anchor, new node)
  inserted.reserve(m_newNodeAnchor.size());
  for (size_t k = 0; k < m_newNodeAnchor.size(); ++k) {
    NodeId root = m_newNodeAnchor[k];
    while (root != ir::kNoNode && static_cast<size_t>(root) >= m_origNodes)
      root = m_newNodeAnchor.at(static_cast<size_t>(root) - m_origNodes);
    inserted.emplace_back(root == ir::kNoNode ? std::numeric_limits<NodeId>::max() : root,
                          static_cast<NodeId>(m_origNodes + k));
  }
  std::stable_sort(inserted.begin(), inserted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<NodeId> order;
  order.reserve(m_g.nodes.size());
  size_t next = 0;
  auto emitBefore = [&](NodeId root) {
    while (next < inserted.size() && inserted[next].first < root) ++next;  // a bad anchor: never emitted
    for (; next < inserted.size() && inserted[next].first == root; ++next)
      if (!isErased(inserted[next].second)) order.push_back(inserted[next].second);
  };
  for (size_t i = 0; i < m_origNodes; ++i) {
    auto id = static_cast<NodeId>(i);
    emitBefore(id);
    if (!isErased(id)) order.push_back(id);
  }
  emitBefore(std::numeric_limits<NodeId>::max());
  return order;
}

// Live values: declarations not erased, and intermediates a kept node produces.
// Original values keep their relative order; new ones slot in by their key.
std::vector<ValueId> GraphRewriter::rebuiltValueOrder(const std::vector<NodeId>& order) const {
  const size_t numValues = m_g.values.size();
  std::vector<NodeId> producer(numValues, ir::kNoNode);
  for (NodeId n : order)
    for (ValueId o : m_g.node(n).outputs) producer[static_cast<size_t>(o)] = n;
  std::vector<ValueId> live;
  live.reserve(numValues);
  for (size_t i = 0; i < numValues; ++i) {
    const ir::Value& v = m_g.values[i];
    bool keep = v.kind == ir::ValueKind::Intermediate ? producer[i] != ir::kNoNode : !flagged(m_erasedValues, v.id);
    if (keep) live.push_back(v.id);
  }
  if (numValues > m_origValues) {
    std::vector<std::pair<std::pair<int64_t, int64_t>, ValueId>> keyed;
    keyed.reserve(live.size());
    for (ValueId v : live) keyed.emplace_back(orderKey(v), v);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < live.size(); ++i) live[i] = keyed[i].second;
  }
  return live;
}

ValueId GraphRewriter::Remap::operator()(ValueId v) const {
  ValueId r = rw.resolve(v);
  if (r < 0 || static_cast<size_t>(r) >= newId.size()) return ir::kNoValue;
  return newId[static_cast<size_t>(r)];
}

// Only live values are moved out, so a removed value still has its name here.
Error GraphRewriter::Remap::removed(ValueId resolved, const std::string& where) const {
  const auto& values = rw.m_g.values;
  return internalError(where + " reads removed value '" +
                       (resolved >= 0 && static_cast<size_t>(resolved) < values.size()
                            ? values[static_cast<size_t>(resolved)].name
                            : std::to_string(resolved)) +
                       "'");
}

Status GraphRewriter::moveValuesInto(const std::vector<ValueId>& live, const Remap& remap, ir::Graph& out) {
  out.values.reserve(live.size());  // no reallocation: `valueNames` views the moved strings
  support::NameSet valueNames(live.size());
  for (ValueId v : live) {
    ir::Value& nv = out.values.emplace_back(std::move(m_g.values[static_cast<size_t>(v)]));
    nv.id = remap.newId[static_cast<size_t>(v)];
    nv.producer = ir::kNoNode;
    if (!valueNames.insert(nv.name)) return internalError("two values named '" + nv.name + "' after rewriting");
    if (auto it = m_g.initializers.find(v); it != m_g.initializers.end()) {
      auto entry = m_g.initializers.extract(it);  // the map node moves over: no allocation
      entry.key() = nv.id;
      out.initializers.insert(out.initializers.end(), std::move(entry));
    }
  }
  return {};
}

Status GraphRewriter::moveNodesInto(const std::vector<NodeId>& order, const Remap& remap, ir::Graph& out) {
  support::NameSet nodeNames(order.size());
  out.nodes.reserve(order.size());  // no reallocation: `nodeNames` views the moved strings
  for (NodeId old : order) {
    ir::Node& n = out.nodes.emplace_back(std::move(m_g.nodes[static_cast<size_t>(old)]));
    n.id = static_cast<NodeId>(out.nodes.size() - 1);
    if (!nodeNames.insert(n.name)) return internalError("two nodes named '" + n.name + "' after rewriting");
    for (ValueId& in : n.inputs) {
      ValueId m = remap(in);
      if (m == ir::kNoValue) return remap.removed(resolve(in), "node '" + n.name + "'");
      in = m;
    }
    for (ValueId& o : n.outputs) {
      o = remap.newId[static_cast<size_t>(o)];
      out.values[static_cast<size_t>(o)].producer = n.id;
    }
  }
  return {};
}

// The graph's inputs, outputs and state updates, in the rebuilt ids.
Status GraphRewriter::mapInterfaceInto(const Remap& remap, ir::Graph& out) const {
  for (ValueId v : m_g.inputs)
    if (remap.newId[static_cast<size_t>(v)] != ir::kNoValue) out.inputs.push_back(remap.newId[static_cast<size_t>(v)]);
  for (ValueId v : m_g.outputs) {
    ValueId m = remap(v);
    if (m == ir::kNoValue) return remap.removed(resolve(v), "graph output");
    out.outputs.push_back(m);
  }
  for (const ir::StateUpdate& u : m_g.updates) {
    ValueId t = remap(u.target), nv = remap(u.newValue);
    if (t == ir::kNoValue) return remap.removed(resolve(u.target), "update");
    if (nv == ir::kNoValue) return remap.removed(resolve(u.newValue), "update");
    out.updates.push_back({t, nv});
  }
  return {};
}

Expected<bool> GraphRewriter::commitTo(ir::Graph& g, bool changed) {
  if (!changed) {
    g = release();
    return false;
  }
  auto out = finish();
  if (!out) return out.error();
  g = std::move(*out);
  return true;
}

Expected<ir::Graph> GraphRewriter::finish() {
  const std::vector<NodeId> order = rebuiltNodeOrder();
  const std::vector<ValueId> live = rebuiltValueOrder(order);
  Remap remap{*this, std::vector<ValueId>(m_g.values.size(), ir::kNoValue)};
  for (size_t i = 0; i < live.size(); ++i) remap.newId[static_cast<size_t>(live[i])] = static_cast<ValueId>(i);
  ir::Graph out;
  out.name = m_g.name;
  DFC_TRY(moveValuesInto(live, remap, out));
  DFC_TRY(moveNodesInto(order, remap, out));
  DFC_TRY(mapInterfaceInto(remap, out));
  return out;
}

}  // namespace dfc::passes
