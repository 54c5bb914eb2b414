#pragma once
// Placer: maps each kernel op of a section's KernelGraph onto its own physical
// unit (PCU or PMU) of the grid, minimizing the total hop count of its edges.
//   1. Grid: the fewest tiles (over all chips) whose PCUs and PMUs hold the graph.
//   2. Greedy seeding: kernels in BFS order from the sources, each on the free
//      unit of its kind nearest to its already-placed neighbours (ring search).
//   3. Simulated annealing with a fixed seed: move or swap a kernel with a unit
//      of its kind in a shrinking window around it; accept by the Metropolis
//      rule under geometric cooling. Moves are bounded (kMovesPerKernel * n,
//      at most kMaxMoves), so a section places in O(n) moves of O(degree) each.
#include <cstdint>
#include <vector>

#include "arch/ArchSpec.h"
#include "kernelc/Grid.h"
#include "lowering/KernelGraph.h"
#include "support/Error.h"

namespace dfc::kernelc {

struct Placement {
  int tiles = 0;                 // tiles of the grid it was placed on
  int gridRows = 0, gridCols = 0;
  std::vector<Site> sites;       // per kernel op
  int64_t totalHops = 0;         // sum over edges
  int maxEdgeHops = 0;
  int criticalPathHops = 0;      // longest source-to-sink path, in hops
  int pcus = 0, pmus = 0;        // units in use
};

struct PlacerOptions {
  static constexpr int kMovesPerKernel = 40;
  static constexpr int kMaxMoves = 60000;
  bool anneal = true;            // false: greedy seeding only
  uint32_t seed = 1;
};

class Placer {
 public:
  explicit Placer(arch::ArchSpec arch) : m_arch(std::move(arch)) {}
  // Errors when the graph needs more PCUs or PMUs than all chips hold.
  Expected<Placement> place(const lowering::KernelGraph& graph, const PlacerOptions& options = {}) const;
  // The naive baseline: kernel i of a kind on the i-th unit of that kind in
  // row-major order of the same grid.
  Expected<Placement> placeRowMajor(const lowering::KernelGraph& graph) const;
  // Tiles needed for `graph` (error if it does not fit at all).
  Expected<int> tilesFor(const lowering::KernelGraph& graph) const;

 private:
  arch::ArchSpec m_arch;
};

// Fills totalHops, maxEdgeHops, criticalPathHops, pcus, pmus from sites.
void measure(const lowering::KernelGraph& graph, const Grid& grid, Placement& p);

}  // namespace dfc::kernelc
