#include "lowering/FanInBound.h"

#include <algorithm>

namespace dfc::lowering {
namespace {

std::vector<int> distinctCount(const KernelGraph& kg, bool incoming) {
  std::vector<std::vector<int>> peers(kg.ops.size());
  for (const auto& e : kg.edges) peers[static_cast<size_t>(incoming ? e.to : e.from)].push_back(incoming ? e.from : e.to);
  std::vector<int> n(kg.ops.size(), 0);
  for (size_t k = 0; k < peers.size(); ++k) {
    auto& p = peers[k];
    std::sort(p.begin(), p.end());
    n[k] = static_cast<int>(std::unique(p.begin(), p.end()) - p.begin());
  }
  return n;
}

}  // namespace

std::vector<int> fanIn(const KernelGraph& kg) { return distinctCount(kg, true); }
std::vector<int> fanOut(const KernelGraph& kg) { return distinctCount(kg, false); }

int boundFanIn(KernelGraph& kg, int bound, const std::vector<bool>& partial) {
  bound = std::max(2, bound);
  const size_t original = kg.ops.size();
  std::vector<std::vector<size_t>> inEdges(original);
  for (size_t e = 0; e < kg.edges.size(); ++e) inEdges[static_cast<size_t>(kg.edges[e].to)].push_back(e);
  std::vector<std::vector<int>> before(original);  // tree units to number right before each op
  for (size_t u = 0; u < original; ++u) {
    std::vector<int> level;
    for (size_t e : inEdges[u]) level.push_back(kg.edges[e].from);
    std::sort(level.begin(), level.end());
    level.erase(std::unique(level.begin(), level.end()), level.end());
    if (static_cast<int>(level.size()) <= bound) continue;
    bool sums = u < partial.size() && partial[u];
    for (int f : level) sums = sums && kg.ops[static_cast<size_t>(f)].unit == UnitKind::Pcu;
    const UnitKind unit = sums ? UnitKind::Pcu : UnitKind::Pmu;
    const KernelRole role = sums ? KernelRole::Reduce : KernelRole::Staging;
    const ir::NodeId node = kg.ops[u].node;
    bool first = true;
    while (static_cast<int>(level.size()) > bound) {
      // Balanced groups of consecutive sources: neighbouring slices share a tree unit.
      const size_t groups = (level.size() + static_cast<size_t>(bound) - 1) / static_cast<size_t>(bound);
      std::vector<int> next;
      std::vector<int> groupOf(first ? kg.ops.size() : 0, -1);
      for (size_t g = 0; g < groups; ++g) {
        int t = kg.add(unit, role, node, sums ? 1 : 0, static_cast<int>(g));
        before[u].push_back(t);
        next.push_back(t);
        for (size_t i = g * level.size() / groups; i < (g + 1) * level.size() / groups; ++i) {
          if (first) groupOf[static_cast<size_t>(level[i])] = t;
          else kg.connect(level[i], t);
        }
      }
      if (first)  // the sources' edges into u now end at their tree unit
        for (size_t e : inEdges[u]) kg.edges[e].to = groupOf[static_cast<size_t>(kg.edges[e].from)];
      first = false;
      level = std::move(next);
    }
    for (int t : level) kg.connect(t, static_cast<int>(u));
  }
  const int added = static_cast<int>(kg.ops.size() - original);
  if (added == 0) return 0;
  // Renumber: each op's tree units (lower levels first) right before it.
  std::vector<int> newId(kg.ops.size(), -1);
  std::vector<KernelOp> ops;
  ops.reserve(kg.ops.size());
  auto take = [&](int k) {
    newId[static_cast<size_t>(k)] = static_cast<int>(ops.size());
    ops.push_back(kg.ops[static_cast<size_t>(k)]);
    ops.back().id = static_cast<int>(ops.size()) - 1;
  };
  for (size_t u = 0; u < original; ++u) {
    for (int t : before[u]) take(t);
    take(static_cast<int>(u));
  }
  kg.ops = std::move(ops);
  for (auto& e : kg.edges) {
    e.from = newId[static_cast<size_t>(e.from)];
    e.to = newId[static_cast<size_t>(e.to)];
  }
  return added;
}

}  // namespace dfc::lowering
