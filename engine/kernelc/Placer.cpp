#include "kernelc/Placer.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

namespace dfc::kernelc {

using lowering::UnitKind;

void measure(const lowering::KernelGraph& g, const Grid& grid, Placement& p) {
  p.totalHops = 0;
  p.maxEdgeHops = 0;
  std::vector<int> depth(g.ops.size(), 0);  // edges go from lower to higher ids (lowering order)
  std::vector<std::vector<std::pair<int, int>>> out(g.ops.size());
  for (const auto& e : g.edges) {
    int h = grid.hops(p.sites[static_cast<size_t>(e.from)], p.sites[static_cast<size_t>(e.to)]);
    p.totalHops += h;
    p.maxEdgeHops = std::max(p.maxEdgeHops, h);
    out[static_cast<size_t>(e.from)].emplace_back(e.to, h);
  }
  p.criticalPathHops = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (auto [to, h] : out[i]) {
      auto& d = depth[static_cast<size_t>(to)];
      if (to > static_cast<int>(i)) d = std::max(d, depth[i] + h);
    }
    p.criticalPathHops = std::max(p.criticalPathHops, depth[i]);
  }
  p.pcus = g.pcus();
  p.pmus = g.pmus();
  p.tiles = grid.tiles();
  p.gridRows = grid.rows();
  p.gridCols = grid.cols();
}

Expected<int> Placer::tilesFor(const lowering::KernelGraph& g) const {
  const int pcus = g.pcus(), pmus = g.pmus();
  const int allTiles = m_arch.tiles * m_arch.chips;
  for (int t = 1; t <= allTiles; ++t)
    if (t * m_arch.pcusPerTile >= pcus && t * m_arch.pmusPerTile >= pmus) return t;
  bool pcu = pcus > allTiles * m_arch.pcusPerTile;
  return makeError("kernel graph needs " + std::to_string(pcu ? pcus : pmus) + (pcu ? " PCUs" : " PMUs") + " but " +
                   m_arch.name + " x" + std::to_string(m_arch.chips) + " has " +
                   std::to_string(allTiles * (pcu ? m_arch.pcusPerTile : m_arch.pmusPerTile)) +
                   "; lower the resource scaling factors or add chips (--n-chips)");
}

Expected<Placement> Placer::placeRowMajor(const lowering::KernelGraph& g) const {
  auto tiles = tilesFor(g);
  if (!tiles) return tiles.error();
  Grid grid(m_arch, *tiles);
  Placement p;
  p.sites.resize(g.ops.size());
  for (UnitKind kind : {UnitKind::Pcu, UnitKind::Pmu}) {
    std::vector<Site> order = grid.sites(kind);
    std::sort(order.begin(), order.end(), [](const Site& a, const Site& b) {
      return a.row != b.row ? a.row < b.row : a.col < b.col;
    });
    size_t next = 0;
    for (const auto& op : g.ops)
      if (op.unit == kind) p.sites[static_cast<size_t>(op.id)] = order[next++];
  }
  measure(g, grid, p);
  return p;
}

namespace {

struct State {
  const lowering::KernelGraph& g;
  const Grid& grid;
  std::vector<std::vector<int>> adj;       // neighbours per kernel (edges both ways)
  std::vector<int> site;                   // kernel -> site index in its kind's list
  std::vector<int> occupant[2];            // kind -> site -> kernel or -1

  int kindIdx(int k) const { return g.ops[static_cast<size_t>(k)].unit == UnitKind::Pcu ? 0 : 1; }
  const Site& siteOf(int k) const {
    return grid.sites(g.ops[static_cast<size_t>(k)].unit)[static_cast<size_t>(site[static_cast<size_t>(k)])];
  }
  int64_t cost(int k) const {
    int64_t c = 0;
    const Site& s = siteOf(k);
    for (int n : adj[static_cast<size_t>(k)])
      if (site[static_cast<size_t>(n)] >= 0) c += grid.hops(s, siteOf(n));
    return c;
  }
  void put(int k, int s) {
    site[static_cast<size_t>(k)] = s;
    if (s >= 0) occupant[kindIdx(k)][static_cast<size_t>(s)] = k;
  }
  // Centroid of the placed neighbours of k; false if none is placed.
  bool centroid(int k, int& row, int& col) const {
    long r = 0, c = 0, n = 0;
    for (int nb : adj[static_cast<size_t>(k)])
      if (site[static_cast<size_t>(nb)] >= 0) {
        r += siteOf(nb).row;
        c += siteOf(nb).col;
        ++n;
      }
    if (!n) return false;
    row = static_cast<int>(r / n);
    col = static_cast<int>(c / n);
    return true;
  }
  // The free site of `kind` nearest (Manhattan) to (row, col): ring search.
  int nearestFree(UnitKind kind, int row, int col) const {
    const auto& occ = occupant[kind == UnitKind::Pcu ? 0 : 1];
    const int maxD = grid.rows() + grid.cols();
    for (int d = 0; d <= maxD; ++d) {
      for (int dr = -d; dr <= d; ++dr) {
        int dc = d - std::abs(dr);
        for (int sgn : {1, -1}) {
          int s = grid.siteAt(kind, row + dr, col + sgn * dc);
          if (s >= 0 && occ[static_cast<size_t>(s)] < 0) return s;
          if (dc == 0) break;
        }
      }
    }
    return -1;
  }
};

}  // namespace

Expected<Placement> Placer::place(const lowering::KernelGraph& g, const PlacerOptions& options) const {
  auto tiles = tilesFor(g);
  if (!tiles) return tiles.error();
  Grid grid(m_arch, *tiles);
  const size_t n = g.ops.size();
  State st{g, grid, std::vector<std::vector<int>>(n), std::vector<int>(n, -1), {}};
  st.occupant[0].assign(grid.sites(UnitKind::Pcu).size(), -1);
  st.occupant[1].assign(grid.sites(UnitKind::Pmu).size(), -1);
  std::vector<int> indegree(n, 0);
  for (const auto& e : g.edges) {
    st.adj[static_cast<size_t>(e.from)].push_back(e.to);
    st.adj[static_cast<size_t>(e.to)].push_back(e.from);
    ++indegree[static_cast<size_t>(e.to)];
  }
  // Greedy seeding in BFS order: sources first, then the kernels they feed.
  std::vector<char> seen(n, 0);
  std::deque<int> queue;
  int cursorRow = 0, cursorCol = 0;
  auto seedFrom = [&](int start) {
    queue.push_back(start);
    seen[static_cast<size_t>(start)] = 1;
    while (!queue.empty()) {
      int k = queue.front();
      queue.pop_front();
      int row = cursorRow, col = cursorCol;
      st.centroid(k, row, col);
      int s = st.nearestFree(g.ops[static_cast<size_t>(k)].unit, row, col);
      st.put(k, s);  // tilesFor guarantees a free site exists
      cursorRow = st.siteOf(k).row;
      cursorCol = st.siteOf(k).col;
      for (int nb : st.adj[static_cast<size_t>(k)])
        if (!seen[static_cast<size_t>(nb)]) {
          seen[static_cast<size_t>(nb)] = 1;
          queue.push_back(nb);
        }
    }
  };
  for (size_t k = 0; k < n; ++k)
    if (indegree[k] == 0 && !seen[k]) seedFrom(static_cast<int>(k));
  for (size_t k = 0; k < n; ++k)
    if (!seen[k]) seedFrom(static_cast<int>(k));

  // Simulated annealing over moves and swaps within a shrinking window.
  if (options.anneal && n > 1 && !g.edges.empty()) {
    std::mt19937 rng(options.seed);
    auto uniform = [&](int bound) { return static_cast<int>(rng() % static_cast<uint32_t>(bound)); };
    auto unit = [&]() { return (rng() >> 8) * (1.0 / 16777216.0); };
    const int64_t moves = std::min<int64_t>(static_cast<int64_t>(n) * PlacerOptions::kMovesPerKernel, PlacerOptions::kMaxMoves);
    const double t0 = 2.0, t1 = 0.02;
    const int w0 = std::max(2, std::max(grid.rows(), grid.cols()) / 3);
    for (int64_t m = 0; m < moves; ++m) {
      double progress = static_cast<double>(m) / static_cast<double>(moves);
      double temp = t0 * std::pow(t1 / t0, progress);
      int window = std::max(1, static_cast<int>(w0 * (1.0 - progress)) + 1);
      int k = uniform(static_cast<int>(n));
      if (st.adj[static_cast<size_t>(k)].empty()) continue;
      UnitKind kind = g.ops[static_cast<size_t>(k)].unit;
      int row = st.siteOf(k).row, col = st.siteOf(k).col;
      if (unit() < 0.5) st.centroid(k, row, col);  // half the moves aim at the neighbours' centre
      int target = grid.siteAt(kind, row + uniform(2 * window + 1) - window, col + uniform(2 * window + 1) - window);
      int from = st.site[static_cast<size_t>(k)];
      if (target < 0 || target == from) continue;
      int other = st.occupant[st.kindIdx(k)][static_cast<size_t>(target)];
      int64_t before = st.cost(k) + (other >= 0 ? st.cost(other) : 0);
      st.put(k, target);
      if (other >= 0) st.put(other, from);
      else st.occupant[st.kindIdx(k)][static_cast<size_t>(from)] = -1;
      int64_t after = st.cost(k) + (other >= 0 ? st.cost(other) : 0);
      int64_t delta = after - before;
      if (delta <= 0 || unit() < std::exp(-static_cast<double>(delta) / temp)) continue;
      // Rejected: undo.
      st.put(k, from);
      if (other >= 0) st.put(other, target);
      else st.occupant[st.kindIdx(k)][static_cast<size_t>(target)] = -1;
    }
  }
  Placement p;
  p.sites.resize(n);
  for (size_t k = 0; k < n; ++k) p.sites[k] = st.siteOf(static_cast<int>(k));
  measure(g, grid, p);
  return p;
}

}  // namespace dfc::kernelc
