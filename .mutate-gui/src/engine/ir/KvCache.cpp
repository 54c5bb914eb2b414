#include "ir/KvCache.h"

#include <algorithm>

namespace dfc::ir {

std::vector<ValueId> kvCacheValues(const Graph& g) {
  std::vector<ValueId> caches;
  for (const Node& n : g.nodes) {
    if (n.op != OpKind::KvCacheWrite || n.inputs.empty()) continue;
    const ValueId cache = n.inputs[0];
    const bool persistent = g.value(cache).kind == ValueKind::Const;
    const bool updated = std::any_of(g.updates.begin(), g.updates.end(), [&](const StateUpdate& u) {
      return u.target == cache && u.newValue == n.outputs[0];
    });
    if (persistent && updated) caches.push_back(cache);
  }
  std::sort(caches.begin(), caches.end());
  caches.erase(std::unique(caches.begin(), caches.end()), caches.end());
  return caches;
}

bool isKvCache(const Graph& g, ValueId v) {
  const auto caches = kvCacheValues(g);
  return std::binary_search(caches.begin(), caches.end(), v);
}

int64_t kvCacheBytes(const Graph& g) {
  int64_t total = 0;
  for (ValueId v : kvCacheValues(g)) total += static_cast<int64_t>(g.value(v).type.byteSize());
  return total;
}

double boundaryBytes(const Graph& g, ValueId v) {
  const Value& value = g.value(v);
  if (value.producer != kNoNode) {
    const Node& n = g.node(value.producer);
    if (n.op == OpKind::KvCacheWrite && n.inputs.size() > 1) return static_cast<double>(g.value(n.inputs[1]).type.byteSize());
  }
  return static_cast<double>(value.type.byteSize());
}

}  // namespace dfc::ir
