#include "mapping/Scheduler.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace dfc::mapping {

Expected<std::vector<int>> scheduleSections(const ir::Graph& g, const std::vector<partition::Section>& sections) {
  const size_t n = sections.size();
  std::vector<int> producer(g.values.size(), -1);  // value -> index of the section producing it
  for (size_t i = 0; i < n; ++i)
    for (ir::NodeId id : sections[i].nodes)
      for (ir::ValueId o : g.node(id).outputs) producer[static_cast<size_t>(o)] = static_cast<int>(i);
  std::vector<std::vector<int>> successors(n);  // each ascending, no repeats
  std::vector<int> indegree(n, 0);
  std::vector<int> linkedTo(n, -1);  // linkedTo[p] == i: edge p -> i already recorded
  for (size_t i = 0; i < n; ++i)
    for (ir::NodeId id : sections[i].nodes)
      for (ir::ValueId in : g.node(id).inputs) {
        int p = producer[static_cast<size_t>(in)];
        if (p < 0 || p == static_cast<int>(i) || linkedTo[static_cast<size_t>(p)] == static_cast<int>(i)) continue;
        linkedTo[static_cast<size_t>(p)] = static_cast<int>(i);
        successors[static_cast<size_t>(p)].push_back(static_cast<int>(i));  // i ascends: the list stays sorted
        ++indegree[i];
      }
  using Key = std::tuple<int, ir::NodeId, int>;  // role, first node, section index
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  auto key = [&](size_t i) {
    ir::NodeId first = sections[i].nodes.empty() ? 0 : *std::min_element(sections[i].nodes.begin(), sections[i].nodes.end());
    // A gradient reduce goes as soon as its bucket is computed, so it can overlap the backward work still to come.
    const int rank = sections[i].type == ir::NodeRole::Reduce ? -1 : static_cast<int>(sections[i].type);
    return Key{rank, first, static_cast<int>(i)};
  };
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(key(i));
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = std::get<2>(ready.top());
    ready.pop();
    order.push_back(sections[static_cast<size_t>(i)].id);
    for (int s : successors[static_cast<size_t>(i)])
      if (--indegree[static_cast<size_t>(s)] == 0) ready.push(key(static_cast<size_t>(s)));
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] > 0)
        for (int s : successors[i])
          if (indegree[static_cast<size_t>(s)] > 0)
            return makeError("sections '" + sections[i].name + "' and '" + sections[static_cast<size_t>(s)].name +
                             "' depend on each other: the decomposition split a cycle");
    return makeError("section dependencies form a cycle");
  }
  return order;
}

}  // namespace dfc::mapping
