#include "kernelc/Placer.h"

#include "kernelc/ChipPartition.h"

#include <algorithm>
#include <cmath>
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
  std::vector<int> adjStart, adj;          // neighbours per kernel (edges both ways), CSR
  std::vector<int> site;                   // kernel -> site index in its kind's list
  std::vector<Site> at;                    // kernel -> its site (valid once placed)
  std::vector<int> occupant[2];            // kind -> site -> kernel or -1
  std::vector<int> chipOf;                 // kernel -> the chip it stays on (kernelc/ChipPartition.h)

  int kindIdx(int k) const { return g.ops[static_cast<size_t>(k)].unit == UnitKind::Pcu ? 0 : 1; }
  const Site& siteOf(int k) const { return at[static_cast<size_t>(k)]; }
  const int* nbBegin(int k) const { return adj.data() + adjStart[static_cast<size_t>(k)]; }
  const int* nbEnd(int k) const { return adj.data() + adjStart[static_cast<size_t>(k) + 1]; }
  int degree(int k) const { return static_cast<int>(nbEnd(k) - nbBegin(k)); }
  void put(int k, int s) {
    site[static_cast<size_t>(k)] = s;
    if (s < 0) return;
    occupant[kindIdx(k)][static_cast<size_t>(s)] = k;
    at[static_cast<size_t>(k)] = grid.sites(g.ops[static_cast<size_t>(k)].unit)[static_cast<size_t>(s)];
  }
  int64_t totalHops() const {
    int64_t c = 0;
    for (const auto& e : g.edges) c += grid.hops(siteOf(e.from), siteOf(e.to));
    return c;
  }
  // Change of the total hops if k moved to site `to` of its kind (swapping with
  // its occupant, if any). Edges between the two keep their length.
  int64_t delta(int k, int to) const {
    const auto& sites = grid.sites(g.ops[static_cast<size_t>(k)].unit);
    const Site& a = siteOf(k);
    const Site& b = sites[static_cast<size_t>(to)];
    int other = occupant[kindIdx(k)][static_cast<size_t>(to)];
    int64_t d = 0;
    for (const int* n = nbBegin(k); n != nbEnd(k); ++n)
      if (*n != other) d += grid.hops(b, siteOf(*n)) - grid.hops(a, siteOf(*n));
    if (other >= 0)
      for (const int* n = nbBegin(other); n != nbEnd(other); ++n)
        if (*n != k) d += grid.hops(a, siteOf(*n)) - grid.hops(b, siteOf(*n));
    return d;
  }
  void apply(int k, int to) {
    int from = site[static_cast<size_t>(k)];
    int other = occupant[kindIdx(k)][static_cast<size_t>(to)];
    put(k, to);
    if (other >= 0) put(other, from);
    else occupant[kindIdx(k)][static_cast<size_t>(from)] = -1;
  }
  // Centroid of the placed neighbours of k; false if none is placed.
  bool centroid(int k, int& row, int& col) const {
    long r = 0, c = 0, n = 0;
    for (const int* nb = nbBegin(k); nb != nbEnd(k); ++nb)
      if (site[static_cast<size_t>(*nb)] >= 0) {
        r += siteOf(*nb).row;
        c += siteOf(*nb).col;
        ++n;
      }
    if (!n) return false;
    row = static_cast<int>(r / n);
    col = static_cast<int>(c / n);
    return true;
  }
  // Median row and column of k's neighbours: where its hops are least.
  void median(int k, int& row, int& col, std::vector<int>& rows, std::vector<int>& cols) const {
    rows.clear();
    cols.clear();
    for (const int* nb = nbBegin(k); nb != nbEnd(k); ++nb) {
      rows.push_back(siteOf(*nb).row);
      cols.push_back(siteOf(*nb).col);
    }
    auto mid = static_cast<std::ptrdiff_t>(rows.size() / 2);
    std::nth_element(rows.begin(), rows.begin() + mid, rows.end());
    std::nth_element(cols.begin(), cols.begin() + mid, cols.end());
    row = rows[static_cast<size_t>(mid)];
    col = cols[static_cast<size_t>(mid)];
  }
  // The free site of `kind` on `chip` nearest (Manhattan) to (row, col): ring search.
  int nearestFree(UnitKind kind, int row, int col, int chip) const {
    const auto& occ = occupant[kind == UnitKind::Pcu ? 0 : 1];
    const auto& sites = grid.sites(kind);
    const int maxD = grid.rows() + grid.cols();
    for (int d = 0; d <= maxD; ++d) {
      for (int dr = -d; dr <= d; ++dr) {
        int dc = d - std::abs(dr);
        for (int sgn : {1, -1}) {
          int s = grid.siteAt(kind, row + dr, col + sgn * dc);
          if (s >= 0 && occ[static_cast<size_t>(s)] < 0 && sites[static_cast<size_t>(s)].chip == chip) return s;
          if (dc == 0) break;
        }
      }
    }
    return -1;
  }
  // May k move to site `to` of its kind: on its own chip.
  bool onItsChip(int k, int to) const {
    return grid.sites(g.ops[static_cast<size_t>(k)].unit)[static_cast<size_t>(to)].chip == chipOf[static_cast<size_t>(k)];
  }
};

// Deterministic on every platform: no std distributions (their algorithms are
// the library's choice).
struct Rng {
  std::mt19937 gen;
  int uniform(int bound) { return static_cast<int>(gen() % static_cast<uint32_t>(bound)); }
  double unit() { return (gen() >> 8) * (1.0 / 16777216.0); }
};

// A random site of k's kind within `window` cells of (row, col), clipped to the
// grid; -1 if the draw hit no site of that kind.
int randomSite(const State& st, Rng& rng, int k, int row, int col, int window) {
  const Grid& grid = st.grid;
  UnitKind kind = st.g.ops[static_cast<size_t>(k)].unit;
  int r0 = std::max(0, row - window), r1 = std::min(grid.rows() - 1, row + window);
  int c0 = std::max(0, col - window), c1 = std::min(grid.cols() - 1, col + window);
  int r = r0 + rng.uniform(r1 - r0 + 1), c = c0 + rng.uniform(c1 - c0 + 1);
  int s = grid.siteAt(kind, r, c);
  if (s < 0) s = grid.siteAt(kind, r, c + 1 <= c1 ? c + 1 : c - 1);  // the checkerboard's other colour
  return s >= 0 && st.onItsChip(k, s) ? s : -1;
}

bool metropolis(Rng& rng, int64_t delta, double temp) {
  if (delta <= 0) return true;
  return temp > 0 && rng.unit() < std::exp(-static_cast<double>(delta) / temp);
}

// The first placer's schedule, kept as the baseline the adaptive one must beat.
void annealBounded(State& st, const PlacerOptions& options, Placement& stats) {
  Rng rng{std::mt19937(options.seed)};
  const int64_t n = static_cast<int64_t>(st.g.ops.size());
  const int64_t moves = std::min<int64_t>(n * options.boundedMovesPerKernel, options.boundedMaxMoves);
  const double t0 = 2.0, t1 = 0.02;
  const int w0 = std::max(2, std::max(st.grid.rows(), st.grid.cols()) / 3);
  for (int64_t m = 0; m < moves; ++m) {
    double progress = static_cast<double>(m) / static_cast<double>(moves);
    double temp = t0 * std::pow(t1 / t0, progress);
    int window = std::max(1, static_cast<int>(w0 * (1.0 - progress)) + 1);
    int k = rng.uniform(static_cast<int>(n));
    if (st.degree(k) == 0) continue;
    int row = st.siteOf(k).row, col = st.siteOf(k).col;
    if (rng.unit() < 0.5) st.centroid(k, row, col);  // half the moves aim at the neighbours' centre
    int span = 2 * window + 1;
    int dr = rng.uniform(span) - window;
    int target = st.grid.siteAt(st.g.ops[static_cast<size_t>(k)].unit, row + dr, col + rng.uniform(span) - window);
    if (target < 0 || target == st.site[static_cast<size_t>(k)] || !st.onItsChip(k, target)) continue;
    if (metropolis(rng, st.delta(k, target), temp)) st.apply(k, target);
  }
  stats.moves = moves;
}

// VPR's adaptive schedule (see Placer.h).
void annealAdaptive(State& st, const std::vector<int>& movable, const PlacerOptions& options, Placement& stats) {
  Rng rng{std::mt19937(options.seed)};
  const double n = static_cast<double>(st.g.ops.size());
  const int maxWindow = std::max(st.grid.rows(), st.grid.cols());
  int64_t cost = st.totalHops();
  const double edges = static_cast<double>(st.g.edges.size());
  // Initial temperature: spread of the cost change of random moves over the
  // whole grid (evaluated, not applied: the greedy seed is kept).
  double sum = 0, sumSq = 0;
  int samples = 0;
  const int probes = static_cast<int>(std::min<double>(n, 4096));
  for (int i = 0; i < probes; ++i) {
    int k = movable[static_cast<size_t>(rng.uniform(static_cast<int>(movable.size())))];
    int target = randomSite(st, rng, k, st.siteOf(k).row, st.siteOf(k).col, maxWindow);
    if (target < 0 || target == st.site[static_cast<size_t>(k)]) continue;
    double d = static_cast<double>(st.delta(k, target));
    sum += d;
    sumSq += d * d;
    ++samples;
  }
  double spread = samples > 1 ? std::sqrt(std::max(0.0, (sumSq - sum * sum / samples) / (samples - 1))) : 1.0;
  double temp = options.initialTempScale * std::max(1.0, spread);
  auto exitTemp = [&] { return options.exitEpsilon * static_cast<double>(cost) / edges; };
  // Moves per temperature: innerNum * n^(4/3), shrunk so that the temperatures
  // a typical run visits (cooling ~0.9 on average) fit in maxMoves.
  double temps = std::log(temp / std::max(1e-9, exitTemp())) / std::log(1 / 0.9) + 10;
  int64_t perTemp = static_cast<int64_t>(std::max(1.0, options.innerNum * std::pow(n, 4.0 / 3.0)));
  perTemp = std::max<int64_t>(1, std::min<int64_t>(perTemp, static_cast<int64_t>(options.maxMoves / std::max(1.0, temps))));
  double window = maxWindow;
  int64_t moves = 0;
  std::vector<int> rows, cols;
  auto sweep = [&](double t, int w) {
    int64_t tried = 0, accepted = 0;
    for (int64_t m = 0; m < perTemp; ++m) {
      int k = movable[static_cast<size_t>(rng.uniform(static_cast<int>(movable.size())))];
      int row = st.siteOf(k).row, col = st.siteOf(k).col, span = w;
      if (rng.unit() < options.medianMoveRate) {  // directed: next to the neighbours' median
        st.median(k, row, col, rows, cols);
        span = 1;
      }
      int target = randomSite(st, rng, k, row, col, span);
      if (target < 0 || target == st.site[static_cast<size_t>(k)]) continue;
      ++tried;
      int64_t d = st.delta(k, target);
      if (!metropolis(rng, d, t)) continue;
      st.apply(k, target);
      cost += d;
      ++accepted;
    }
    moves += perTemp;
    return tried ? static_cast<double>(accepted) / static_cast<double>(tried) : 0.0;
  };
  while (cost > 0 && temp >= exitTemp() && moves + 2 * perTemp <= options.maxMoves) {
    double rate = sweep(temp, std::max(1, static_cast<int>(window)));
    ++stats.temperatures;
    window = std::clamp(window * (1.0 - 0.44 + rate), 1.0, static_cast<double>(maxWindow));
    temp *= rate > 0.96 ? 0.5 : rate > 0.8 ? 0.9 : (rate > 0.15 || window > 1.0) ? 0.95 : 0.8;
  }
  if (cost > 0) sweep(0.0, std::max(1, static_cast<int>(window)));  // the final quench
  stats.moves = moves;
}

// Every kernel once, breadth first from the sources in id order, then from
// whatever is left (cycles of kernels fed by nothing outside them).
std::vector<int> seedingOrder(const State& st, const std::vector<int>& indegree) {
  const size_t n = st.g.ops.size();
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> seen(n, 0);
  auto from = [&](size_t start) {
    size_t head = order.size();
    order.push_back(static_cast<int>(start));
    seen[start] = 1;
    for (; head < order.size(); ++head)
      for (const int* nb = st.nbBegin(order[head]); nb != st.nbEnd(order[head]); ++nb)
        if (!seen[static_cast<size_t>(*nb)]) {
          seen[static_cast<size_t>(*nb)] = 1;
          order.push_back(*nb);
        }
  };
  for (size_t k = 0; k < n; ++k)
    if (indegree[k] == 0 && !seen[k]) from(k);
  for (size_t k = 0; k < n; ++k)
    if (!seen[k]) from(k);
  return order;
}

}  // namespace

Expected<Placement> Placer::place(const lowering::KernelGraph& g, const PlacerOptions& options) const {
  auto tiles = tilesFor(g);
  if (!tiles) return tiles.error();
  Grid grid(m_arch, *tiles);
  const size_t n = g.ops.size();
  State st{g, grid, std::vector<int>(n + 1, 0), {}, std::vector<int>(n, -1), std::vector<Site>(n), {}, {}};
  st.occupant[0].assign(grid.sites(UnitKind::Pcu).size(), -1);
  st.occupant[1].assign(grid.sites(UnitKind::Pmu).size(), -1);
  std::vector<int> indegree(n, 0);
  for (const auto& e : g.edges) {
    ++st.adjStart[static_cast<size_t>(e.from) + 1];
    ++st.adjStart[static_cast<size_t>(e.to) + 1];
    ++indegree[static_cast<size_t>(e.to)];
  }
  for (size_t k = 0; k < n; ++k) st.adjStart[k + 1] += st.adjStart[k];
  st.adj.resize(static_cast<size_t>(st.adjStart[n]));
  {
    std::vector<int> fill(st.adjStart.begin(), st.adjStart.end() - 1);
    for (const auto& e : g.edges) {
      st.adj[static_cast<size_t>(fill[static_cast<size_t>(e.from)]++)] = e.to;
      st.adj[static_cast<size_t>(fill[static_cast<size_t>(e.to)]++)] = e.from;
    }
  }
  // Greedy seeding in BFS order (sources first, then the kernels they feed),
  // each kernel on its chip's free unit nearest its placed neighbours.
  const std::vector<int> order = seedingOrder(st, indegree);
  st.chipOf = partitionByChip(g, order, grid);
  std::vector<std::pair<int, int>> cursor(static_cast<size_t>(grid.tiles()) + 1, {0, 0});  // per chip: last placed
  for (int k : order) {
    const int chip = st.chipOf[static_cast<size_t>(k)];
    auto& [row, col] = cursor[static_cast<size_t>(chip)];
    int r = row, c = col;
    st.centroid(k, r, c);
    if (grid.chipAt(r, c) != chip) r = row, c = col;  // neighbours on other chips: start from this chip's last
    int site = st.nearestFree(g.ops[static_cast<size_t>(k)].unit, r, c, chip);
    st.put(k, site);  // tilesFor and the partition guarantee a free site on the chip
    row = st.siteOf(k).row;
    col = st.siteOf(k).col;
  }

  Placement p;
  p.seedHops = st.totalHops();
  std::vector<int> movable;  // kernels with edges: moving the others changes nothing
  for (size_t k = 0; k < n; ++k)
    if (st.degree(static_cast<int>(k)) > 0) movable.push_back(static_cast<int>(k));
  if (options.anneal && movable.size() > 1) {
    // The move budget was set for a graph that fits one chip; annealing needs moves growing as
    // n^(4/3) (VPR's moves per temperature), so a graph of c whole chips' units gets c^(4/3) times
    // as many: 16x for the 17,000 units of an 8-chip Llama prefill layer.
    PlacerOptions effort = options;
    const int64_t chipUnits = std::max(1, m_arch.pcusPerChip() + m_arch.tiles * m_arch.pmusPerTile);
    const double chipsWorth = static_cast<double>(std::max<int64_t>(1, static_cast<int64_t>(n) / chipUnits));
    const double scale = std::pow(chipsWorth, 4.0 / 3.0);
    effort.maxMoves = static_cast<int64_t>(static_cast<double>(options.maxMoves) * scale);
    effort.boundedMaxMoves = static_cast<int64_t>(static_cast<double>(options.boundedMaxMoves) * scale);
    if (options.schedule == PlacerOptions::Schedule::Bounded) annealBounded(st, effort, p);
    else annealAdaptive(st, movable, effort, p);
  }
  p.sites = st.at;
  measure(g, grid, p);
  return p;
}

}  // namespace dfc::kernelc
