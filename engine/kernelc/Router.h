#pragma once
// Router: PathFinder negotiated-congestion routing of a placed kernel graph
// over the on-chip mesh. Every grid cell of a tile has a switch; each switch
// has a directed link to each of its 4 neighbours on the same chip carrying at
// most `linkTracks` routes (nets). Chips are separate meshes: an edge between
// units of two chips goes over the modelled chip link (costed by the
// collective and PCIe models, counted here at Grid::hops: its Manhattan
// distance plus Grid::kChipHops) and takes no mesh link, so each chip routes
// only its own nets.
// A net is a kernel with its fanout: one route tree from its switch to every
// sink's switch; the sinks of a net share links (a link counts once per net).
// Each sink is found by A* from the net's tree (tree cells start at their
// distance from the source, so uncongested routes are shortest paths), link
// cost (base + history) * (1 + presFac * overuse if taken), within the net's
// bounding box plus a margin. After the first pass, only nets on an overused
// link are ripped up and rerouted, presFac grows, history accumulates on
// overused links, until no link is over capacity, maxIterations, or
// stallIterations passes without progress; the legal (or least overused)
// routing is kept. A unit fed by more nets than capacity x its incoming links
// overuses those links in any routing: they are negotiated against that
// least overuse (and reported), so that the rest still converges.
#include <chrono>
#include <cstdint>
#include <vector>

#include "arch/ArchSpec.h"
#include "kernelc/Grid.h"
#include "lowering/KernelGraph.h"

namespace dfc::kernelc {

struct RouterOptions {
  int linkTracks = 0;           // routes one link carries; 0: arch::kDefaultLinkTracks (callers pass arch::linkTracks)
  int maxIterations = 20;
  int stallIterations = 8;      // stop after this many passes without fewer overused links
  int boxMargin = 3;            // searches stay in the net's bounding box widened by this many cells
  double initialPresFac = 0.5;  // present-congestion factor after the first pass (which ignores congestion)
  double presFacMult = 1.5;
  double maxPresFac = 1000;
  double histFac = 0.5;
  // No pass starts after this (the first always runs): routing is bounded
  // work whatever the knobs (a 1-track link and 1000 passes), and keeps the
  // least overused pass found by then.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct RouteNode {
  int cell = 0;     // row * grid cols + col
  int parent = -1;  // index in the same tree; -1 at the source
  int hops = 0;     // routed hops from the source
};

struct Routing {
  std::vector<std::vector<RouteNode>> trees;  // per kernel (a net; empty without fanout); [0] is its switch
  std::vector<std::pair<int, int>> edgeNode;  // per kernel edge: the net (source kernel) and its sink's tree node;
                                              // {-1, -1}: between chips, over the chip link
  std::vector<int> edgeHops;                  // per kernel edge: routed hops (>= Grid::hops of its sites)
  int64_t wireLength = 0;                     // sum of edgeHops
  int64_t manhattanLength = 0;                // sum of Grid::hops over the edges (the placer's cost)
  int64_t linksUsed = 0;                      // links in all trees (shared sinks count once)
  int iterations = 0;
  bool timedOut = false;                      // stopped at RouterOptions::deadline with links still over capacity
  int capacity = 0;                           // tracks per link
  int maxLinkUse = 0;                         // most nets on one on-chip link
  int overusedLinks = 0;                      // links left over capacity (0: a legal routing)
  int forcedLinks = 0;                        // links into units fed by more nets than their links carry:
                                              // over capacity in any routing (negotiated to the least overuse)
  int criticalPathHops = 0;                   // longest source-to-sink kernel path over edgeHops
  int chipLinkEdges = 0;                      // edges between units of two chips (not routed on a mesh)
  // Nets on each directed on-chip link as the router negotiated them, per
  // cell * 4 + direction (0 N, 1 E, 2 S, 3 W; cell = row * grid cols + col):
  // what capacity and overusedLinks are measured against. 0 off the tiles.
  std::vector<int> linkUse;

  // Cells from the source's switch to the sink's switch of kernel edge `edge` (empty over a chip link).
  std::vector<int> path(size_t edge) const;
};


class Router {
 public:
  explicit Router(const Grid& grid) : m_grid(grid) {}
  // `sites`: per kernel op, as Placement::sites.
  Routing route(const lowering::KernelGraph& graph, const std::vector<Site>& sites, const RouterOptions& options) const;

 private:
  const Grid& m_grid;
};

// Longest source-to-sink path over the kernel edges, `edgeHops` per edge.
int criticalPathHops(const lowering::KernelGraph& graph, const std::vector<int>& edgeHops);

}  // namespace dfc::kernelc
