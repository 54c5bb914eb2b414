#include "kernelc/Router.h"

#include "arch/FanIn.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <queue>

namespace dfc::kernelc {
namespace {

constexpr int kDr[4] = {-1, 0, 1, 0};
constexpr int kDc[4] = {0, 1, 0, -1};
enum LinkKind : signed char { kNoLink = -1, kOnChip = 0 };

struct Open {
  double f, g;
  int cell;
  // Smallest f first; among equals the deeper one (larger g), which shares more of the tree.
  bool operator<(const Open& o) const { return f != o.f ? f > o.f : g < o.g; }
};

class Negotiation {
 public:
  Negotiation(const Grid& grid, const lowering::KernelGraph& g, const std::vector<Site>& sites, int capacity, int margin)
      : m_g(g), m_rows(grid.rows()), m_cols(grid.cols()), m_cap(capacity), m_margin(margin) {
    const int cells = grid.rows() * grid.cols();
    m_chip.resize(static_cast<size_t>(cells));
    for (int c = 0; c < cells; ++c) m_chip[static_cast<size_t>(c)] = grid.chipAt(c / m_cols, c % m_cols);
    m_link.assign(static_cast<size_t>(cells) * 4, kNoLink);
    for (int c = 0; c < cells; ++c) {
      if (m_chip[static_cast<size_t>(c)] < 0) continue;
      for (int d = 0; d < 4; ++d) {
        int r = c / m_cols + kDr[d], col = c % m_cols + kDc[d];
        // Chips are separate meshes: a route never crosses into another chip's cells.
        if (grid.chipAt(r, col) == m_chip[static_cast<size_t>(c)]) m_link[static_cast<size_t>(c) * 4 + static_cast<size_t>(d)] = kOnChip;
      }
    }
    m_occ.assign(m_link.size(), 0);
    m_limit.assign(m_link.size(), capacity);
    m_hist.assign(m_link.size(), 0.0);
    m_best.assign(static_cast<size_t>(cells), 0.0);
    m_from.assign(static_cast<size_t>(cells), -1);
    m_seen.assign(static_cast<size_t>(cells), 0);
    m_treeStamp.assign(static_cast<size_t>(cells), 0);
    m_treeIndex.assign(static_cast<size_t>(cells), -1);
    m_cellOf.resize(sites.size());
    for (size_t k = 0; k < sites.size(); ++k) m_cellOf[k] = sites[k].row * m_cols + sites[k].col;
    m_sinks.resize(g.ops.size());
    for (size_t e = 0; e < g.edges.size(); ++e)
      if (!crossesChips(static_cast<int>(e))) m_sinks[static_cast<size_t>(g.edges[e].from)].push_back(static_cast<int>(e));
    for (size_t k = 0; k < m_sinks.size(); ++k) {  // nearest sinks first: the far ones branch off their routes
      auto& list = m_sinks[k];
      std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return manhattan(a) < manhattan(b); });
    }
    m_netLinks.resize(g.ops.size());
    // A unit fed by more nets than its switch's incoming links carry forces
    // overuse there whatever the routing: negotiate those links against the
    // least they must carry, so that the rest of the chip still converges.
    std::vector<std::vector<int>> feeders(g.ops.size());
    for (size_t e = 0; e < g.edges.size(); ++e)
      if (g.edges[e].from != g.edges[e].to && !crossesChips(static_cast<int>(e)))
        feeders[static_cast<size_t>(g.edges[e].to)].push_back(g.edges[e].from);
    for (size_t k = 0; k < feeders.size(); ++k) {
      auto& f = feeders[k];
      std::sort(f.begin(), f.end());
      int nets = static_cast<int>(std::unique(f.begin(), f.end()) - f.begin());
      int cell = m_cellOf[k];
      std::vector<size_t> in;
      for (int d = 0; d < 4; ++d) {
        int r = cell / m_cols - kDr[d], c = cell % m_cols - kDc[d];
        if (r < 0 || c < 0 || r >= m_rows || c >= m_cols) continue;
        size_t l = static_cast<size_t>(r * m_cols + c) * 4 + static_cast<size_t>(d);
        if (m_link[l] == kOnChip) in.push_back(l);
      }
      if (in.empty() || nets <= capacity * static_cast<int>(in.size())) continue;
      int need = (nets + static_cast<int>(in.size()) - 1) / static_cast<int>(in.size());
      for (size_t l : in) m_limit[l] = std::max(m_limit[l], need);
    }
  }

  // An edge between units of two chips goes over the modelled chip link, not the meshes.
  bool crossesChips(int edge) const {
    const auto& e = m_g.edges[static_cast<size_t>(edge)];
    return m_chip[static_cast<size_t>(m_cellOf[static_cast<size_t>(e.from)])] !=
           m_chip[static_cast<size_t>(m_cellOf[static_cast<size_t>(e.to)])];
  }
  int manhattan(int edge) const {
    const auto& e = m_g.edges[static_cast<size_t>(edge)];
    return cellDistance(m_cellOf[static_cast<size_t>(e.from)], m_cellOf[static_cast<size_t>(e.to)]);
  }
  int cellDistance(int a, int b) const {
    int d = std::abs(a / m_cols - b / m_cols) + std::abs(a % m_cols - b % m_cols);
    return m_chip[static_cast<size_t>(a)] == m_chip[static_cast<size_t>(b)] ? d : d + Grid::kChipHops;
  }
  bool overused(size_t l) const { return m_link[l] == kOnChip && m_occ[l] > m_limit[l]; }

  void ripUp(int net) {
    for (int l : m_netLinks[static_cast<size_t>(net)]) --m_occ[static_cast<size_t>(l)];
    m_netLinks[static_cast<size_t>(net)].clear();
  }

  // Routes every sink of `net` into routing.trees[net] / edgeNode.
  void routeNet(int net, double presFac, Routing& routing) {  // its sinks on the source's chip
    auto& tree = routing.trees[static_cast<size_t>(net)];
    tree.clear();
    if (m_sinks[static_cast<size_t>(net)].empty()) return;
    ++m_treeGen;
    int src = m_cellOf[static_cast<size_t>(net)];
    addTreeNode(tree, src, -1, 0);
    // Searches stay in the net's bounding box widened by the margin (VPR's bb_factor).
    int r0 = src / m_cols, r1 = r0, c0 = src % m_cols, c1 = c0;
    for (int e : m_sinks[static_cast<size_t>(net)]) {
      int sink = m_cellOf[static_cast<size_t>(m_g.edges[static_cast<size_t>(e)].to)];
      r0 = std::min(r0, sink / m_cols), r1 = std::max(r1, sink / m_cols);
      c0 = std::min(c0, sink % m_cols), c1 = std::max(c1, sink % m_cols);
    }
    m_box = {std::max(0, r0 - m_margin), std::min(m_rows - 1, r1 + m_margin), std::max(0, c0 - m_margin),
             std::min(m_cols - 1, c1 + m_margin)};
    for (int e : m_sinks[static_cast<size_t>(net)]) {
      int sink = m_cellOf[static_cast<size_t>(m_g.edges[static_cast<size_t>(e)].to)];
      if (m_treeStamp[static_cast<size_t>(sink)] != m_treeGen && !search(tree, sink, presFac, net, true))
        search(tree, sink, presFac, net, false);  // the box has no way round (chips in odd shapes): the whole grid
      routing.edgeNode[static_cast<size_t>(e)] = {net, m_treeIndex[static_cast<size_t>(sink)]};
    }
  }

  // Links over their negotiated limit; `overCapacity`: over the true capacity
  // (including the forced ones).
  int countOverused(int& maxUse, int& overCapacity) const {
    int over = 0;
    maxUse = 0;
    overCapacity = 0;
    for (size_t l = 0; l < m_link.size(); ++l) {
      if (m_link[l] != kOnChip) continue;
      maxUse = std::max(maxUse, m_occ[l]);
      over += m_occ[l] > m_limit[l];
      overCapacity += m_occ[l] > m_cap;
    }
    return over;
  }
  // Nets per link, 0 where there is no on-chip link.
  std::vector<int> linkUse() const {
    std::vector<int> use(m_occ.size(), 0);
    for (size_t l = 0; l < m_link.size(); ++l)
      if (m_link[l] == kOnChip) use[l] = m_occ[l];
    return use;
  }
  int forcedLinks() const {
    int n = 0;
    for (size_t l = 0; l < m_link.size(); ++l) n += m_limit[l] > m_cap;
    return n;
  }
  void addHistory(double histFac) {
    for (size_t l = 0; l < m_link.size(); ++l)
      if (overused(l)) m_hist[l] += histFac * (m_occ[l] - m_limit[l]);
  }
  bool usesOverused(int net) const {
    for (int l : m_netLinks[static_cast<size_t>(net)])
      if (overused(static_cast<size_t>(l))) return true;
    return false;
  }
  // Occupancy from the trees (after restoring a saved routing).
  void recount(const Routing& routing) {
    std::fill(m_occ.begin(), m_occ.end(), 0);
    for (size_t net = 0; net < routing.trees.size(); ++net) {
      auto& links = m_netLinks[net];
      links.clear();
      const auto& tree = routing.trees[net];
      for (size_t i = 1; i < tree.size(); ++i) {
        int from = tree[static_cast<size_t>(tree[i].parent)].cell, to = tree[i].cell;
        int d = to - from == -m_cols ? 0 : to - from == 1 ? 1 : to - from == m_cols ? 2 : 3;
        int l = from * 4 + d;
        links.push_back(l);
        ++m_occ[static_cast<size_t>(l)];
      }
    }
  }

 private:
  void addTreeNode(std::vector<RouteNode>& tree, int cell, int parent, int hops) {
    m_treeStamp[static_cast<size_t>(cell)] = m_treeGen;
    m_treeIndex[static_cast<size_t>(cell)] = static_cast<int>(tree.size());
    tree.push_back({cell, parent, hops});
  }

  // A* from every cell of the tree (at its hops from the source) to `sink`;
  // false if `boxed` and the box holds no path.
  bool search(std::vector<RouteNode>& tree, int sink, double presFac, int net, bool boxed) {
    ++m_searchGen;
    m_open = {};
    auto h = [&](int c) { return static_cast<double>(cellDistance(c, sink)); };
    for (const RouteNode& n : tree) {
      m_seen[static_cast<size_t>(n.cell)] = m_searchGen;
      m_best[static_cast<size_t>(n.cell)] = n.hops;
      m_from[static_cast<size_t>(n.cell)] = -1;
      m_open.push({n.hops + h(n.cell), static_cast<double>(n.hops), n.cell});
    }
    while (!m_open.empty()) {
      Open top = m_open.top();
      m_open.pop();
      if (top.g > m_best[static_cast<size_t>(top.cell)]) continue;  // stale entry
      if (top.cell == sink) break;
      for (int d = 0; d < 4; ++d) {
        size_t l = static_cast<size_t>(top.cell) * 4 + static_cast<size_t>(d);
        signed char kind = m_link[l];
        if (kind == kNoLink) continue;
        int next = top.cell + kDr[d] * m_cols + kDc[d];
        if (m_treeStamp[static_cast<size_t>(next)] == m_treeGen) continue;  // already on the tree
        if (boxed && (next / m_cols < m_box[0] || next / m_cols > m_box[1] || next % m_cols < m_box[2] ||
                      next % m_cols > m_box[3]))
          continue;
        double cost = (1.0 + m_hist[l]) * (1.0 + presFac * std::max(0, m_occ[l] + 1 - m_limit[l]));
        double g = top.g + cost;
        if (m_seen[static_cast<size_t>(next)] == m_searchGen && g >= m_best[static_cast<size_t>(next)]) continue;
        m_seen[static_cast<size_t>(next)] = m_searchGen;
        m_best[static_cast<size_t>(next)] = g;
        m_from[static_cast<size_t>(next)] = static_cast<int>(l);
        m_open.push({g + h(next), g, next});
      }
    }
    if (m_seen[static_cast<size_t>(sink)] != m_searchGen) {
      if (boxed) return false;
      addTreeNode(tree, sink, 0, cellDistance(tree[0].cell, sink));  // cannot happen: the tiles are one connected block
      return true;
    }
    // Walk back to the tree, then add the new branch from the tree outwards.
    m_branch.clear();
    for (int c = sink; m_from[static_cast<size_t>(c)] >= 0; c = m_from[static_cast<size_t>(c)] / 4)
      m_branch.push_back(m_from[static_cast<size_t>(c)]);
    std::reverse(m_branch.begin(), m_branch.end());
    for (int l : m_branch) {
      int from = l / 4, d = l % 4;
      const RouteNode& parent = tree[static_cast<size_t>(m_treeIndex[static_cast<size_t>(from)])];
      int parentIdx = m_treeIndex[static_cast<size_t>(from)];
      int hops = parent.hops + 1;
      addTreeNode(tree, from + kDr[d] * m_cols + kDc[d], parentIdx, hops);
      ++m_occ[static_cast<size_t>(l)];
      m_netLinks[static_cast<size_t>(net)].push_back(l);
    }
    return true;
  }

  const lowering::KernelGraph& m_g;
  int m_rows, m_cols;
  int m_cap, m_margin;
  std::array<int, 4> m_box{};       // the routed net's search box: rows r0..r1, cols c0..c1
  std::vector<int> m_chip;          // per cell, -1 outside the tiles
  std::vector<signed char> m_link;  // per cell * 4 + direction (N E S W)
  std::vector<int> m_occ;           // nets per link
  std::vector<int> m_limit;         // nets a link may carry: the capacity, more into a unit fed by too many nets
  std::vector<double> m_hist;       // accumulated overuse per link
  std::vector<int> m_cellOf;        // per kernel
  std::vector<std::vector<int>> m_sinks;     // per kernel: its out edges, nearest first
  std::vector<std::vector<int>> m_netLinks;  // per kernel: the links of its tree
  // Search state, stamped so that nothing is cleared between searches.
  std::vector<double> m_best;
  std::vector<int> m_from, m_seen, m_treeStamp, m_treeIndex, m_branch;
  int m_searchGen = 0, m_treeGen = 0;
  std::priority_queue<Open> m_open;
};

}  // namespace

std::vector<int> Routing::path(size_t edge) const {
  auto [net, node] = edgeNode.at(edge);
  if (net < 0) return {};  // over the chip link
  const auto& tree = trees.at(static_cast<size_t>(net));
  std::vector<int> cells;
  for (int i = node; i >= 0; i = tree[static_cast<size_t>(i)].parent) cells.push_back(tree[static_cast<size_t>(i)].cell);
  std::reverse(cells.begin(), cells.end());
  return cells;
}

int criticalPathHops(const lowering::KernelGraph& g, const std::vector<int>& edgeHops) {
  std::vector<std::vector<std::pair<int, int>>> out(g.ops.size());
  for (size_t e = 0; e < g.edges.size(); ++e)
    out[static_cast<size_t>(g.edges[e].from)].emplace_back(g.edges[e].to, edgeHops[e]);
  std::vector<int> depth(g.ops.size(), 0);  // edges go from lower to higher ids (lowering order)
  int longest = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (auto [to, h] : out[i]) {
      auto& d = depth[static_cast<size_t>(to)];
      if (to > static_cast<int>(i)) d = std::max(d, depth[i] + h);
    }
    longest = std::max(longest, depth[i]);
  }
  return longest;
}

Routing Router::route(const lowering::KernelGraph& g, const std::vector<Site>& sites, const RouterOptions& options) const {
  Routing r;
  r.capacity = options.linkTracks > 0 ? options.linkTracks : arch::kDefaultLinkTracks;
  r.trees.resize(g.ops.size());
  r.edgeNode.assign(g.edges.size(), {0, 0});
  Negotiation net(m_grid, g, sites, r.capacity, options.boxMargin);
  const int nets = static_cast<int>(g.ops.size());
  Routing best;
  int bestOver = -1, maxUse = 0, overCapacity = 0, sinceBest = 0;
  double presFac = 0;  // the first pass routes every net by its shortest path
  for (int it = 1; it <= std::max(1, options.maxIterations); ++it) {
    r.iterations = it;
    for (int k = 0; k < nets; ++k) {
      if (it > 1 && !net.usesOverused(k)) continue;
      net.ripUp(k);
      net.routeNet(k, presFac, r);
    }
    int over = net.countOverused(maxUse, overCapacity);
    if (over == 0) {
      bestOver = 0;
      break;
    }
    if (bestOver < 0 || over < bestOver) {
      bestOver = over;
      best.trees = r.trees;
      best.edgeNode = r.edgeNode;
      sinceBest = 0;
    } else if (++sinceBest >= options.stallIterations) {
      break;  // more demand than the links hold around here: more iterations only push it about
    }
    if (std::chrono::steady_clock::now() > options.deadline) {
      r.timedOut = true;
      break;
    }
    net.addHistory(options.histFac);
    presFac = it == 1 ? options.initialPresFac : std::min(options.maxPresFac, presFac * options.presFacMult);
  }
  if (bestOver > 0 && best.trees.size() == r.trees.size()) {  // congestion left: keep the least overused pass
    r.trees = std::move(best.trees);
    r.edgeNode = std::move(best.edgeNode);
    net.recount(r);
  }
  net.countOverused(r.maxLinkUse, r.overusedLinks);
  r.forcedLinks = net.forcedLinks();
  r.linkUse = net.linkUse();
  r.edgeHops.resize(g.edges.size());
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const Site &from = sites[static_cast<size_t>(g.edges[e].from)], &to = sites[static_cast<size_t>(g.edges[e].to)];
    if (net.crossesChips(static_cast<int>(e))) {  // the chip link: its hop equivalent, no mesh links
      r.edgeNode[e] = {-1, -1};
      r.edgeHops[e] = m_grid.hops(from, to);
      ++r.chipLinkEdges;
    } else {
      auto [k, node] = r.edgeNode[e];
      r.edgeHops[e] = r.trees[static_cast<size_t>(k)][static_cast<size_t>(node)].hops;
    }
    r.wireLength += r.edgeHops[e];
    r.manhattanLength += m_grid.hops(from, to);
  }
  for (const auto& tree : r.trees) r.linksUsed += tree.empty() ? 0 : static_cast<int64_t>(tree.size()) - 1;
  r.criticalPathHops = criticalPathHops(g, r.edgeHops);
  return r;
}

}  // namespace dfc::kernelc
