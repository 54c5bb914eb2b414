#pragma once
// Placer: maps each kernel op of a section's KernelGraph onto its own physical
// unit (PCU or PMU) of the grid, minimizing the total hop count of its edges.
//   1. Grid: the fewest tiles (over all chips) whose PCUs and PMUs hold the graph.
//   2. Greedy seeding: kernels in BFS order from the sources, each on the free
//      unit of its kind nearest to its already-placed neighbours (ring search).
//   3. Simulated annealing with a fixed seed: move or swap a kernel with a unit
//      of its kind in a window around it; accept by the Metropolis rule.
//      Adaptive schedule (VPR's): T0 = initialTempScale x the spread (standard
//      deviation) of random moves' cost changes; innerNum * n^(4/3) moves per
//      temperature (medianMoveRate of them aimed next to the median of the
//      kernel's neighbours, the rest random in the window); the window (range limiter) follows the acceptance rate to
//      keep it near 0.44; T shrinks by 0.5 / 0.9 / 0.95 / 0.8 as the acceptance
//      rate is above 0.96 / above 0.8 / above 0.15 or the window is still wider
//      than 1 / else; exit when T < exitEpsilon x cost per edge, then a quench
//      at T = 0. maxMoves caps the total (huge sections: the moves per
//      temperature shrink to fit), so a section places in O(min(n^(4/3) x
//      temperatures, maxMoves)) moves of O(degree) each.
//      Bounded schedule (the first placer, kept as a baseline): boundedMovesPerKernel
//      * n moves (at most boundedMaxMoves), fixed geometric cooling, a window that
//      shrinks linearly, half the moves aimed at the neighbours' centroid.
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
  int64_t seedHops = 0;          // after greedy seeding, before annealing
  int64_t moves = 0;             // annealing moves tried
  int temperatures = 0;          // adaptive schedule: temperatures visited
};

struct PlacerOptions {
  enum class Schedule : uint8_t { Adaptive, Bounded };
  // Effort of the bounded schedule (--mac-v2's placer).
  int boundedMovesPerKernel = 40;
  int64_t boundedMaxMoves = 60000;
  bool anneal = true;            // false: greedy seeding only
  Schedule schedule = Schedule::Adaptive;
  // Effort of the adaptive schedule.
  double innerNum = 0.35;        // moves per temperature = innerNum * n^(4/3)
  int64_t maxMoves = 400000;     // all temperatures together (~0.1 s: huge sections stay well under a second)
  double initialTempScale = 1.0; // T0 = scale * std dev of random moves' cost changes (the seed is kept warm, not melted)
  double exitEpsilon = 0.005;    // stop when T < epsilon * hops per edge
  double medianMoveRate = 0.3;   // share of moves aimed next to the neighbours' median (the rest: random in the window)
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
