#pragma once
// Linker: for every hypersection, lower one instance (lowering/Lowerer.h),
// place it (kernelc/Placer.h) and emit its bitfile; all instances share it.
// Each placement is routed (kernelc/Router.h): bitfile routes carry routed
// hops. Layer 3 of the compile report comes from here: placed PCUs/PMUs, hops, and
// min/max latency considering DRAM:
//   hop_us  = critical path hops (routed) * network_hop_ns / 1000
//   fill_us = ops * pcu_stages / clock (as in the cost model)
//   onchip_us = bytes passed inside the section / (network_link_gbps * placed PCUs)
//   min_us  = max(compute_us, onchip_us, activation bytes / HBM-or-DDR bw) + fill_us + hop_us
//             (weights stay resident in PMUs between calls)
//   max_us  = max(compute_us, onchip_us, all boundary bytes incl. weights / DDR bw) + fill_us + hop_us + chip_us
//             (everything streamed from DDR on every call)
#include <string>
#include <vector>

#include "arch/CostModel.h"
#include "kernelc/Placer.h"
#include "kernelc/Router.h"
#include "ir/Graph.h"
#include "mapping/SectionMapper.h"
#include "partition/Plan.h"
#include "pef/Bitfile.h"
#include "support/Error.h"

namespace dfc::kernelc {

struct SectionPlacement {
  int pcus = 0, pmus = 0;     // units in use after placement
  int tiles = 0;
  int64_t totalHops = 0;        // routed (the bitfile's routes)
  int64_t placedHops = 0;       // Manhattan, as the placer saw them
  int criticalPathHops = 0;     // routed
  double minLatencyUs = 0;
  double maxLatencyUs = 0;
};

// A bitfile whose routing stayed over capacity after the retries.
struct OverusedBitfile {
  std::string hypersection;
  std::vector<std::string> sections;  // its instances
  int links = 0;                      // links over capacity
  int forced = 0;                     // of those, into units fed by more nets than their links carry
};

struct LinkResult {
  std::vector<pef::Bitfile> bitfiles;        // one per hypersection, in hypersection order
  std::vector<SectionPlacement> sections;    // indexed by section id
  int64_t naiveHops = 0;                     // row-major placement of the same graphs, for the log
  int64_t placedHops = 0;                    // Manhattan hops of the placements, summed over bitfiles
  int64_t routedHops = 0;                    // routed hops (>= placedHops), summed over bitfiles
  int overusedLinks = 0;                     // links left over capacity, summed over bitfiles (0: all legal)
  int forcedLinks = 0;                       // of those, links into units fed by more nets than their links carry
  int maxLinkUse = 0;                        // most routes on one link, over all bitfiles
  int linkCapacity = 0;                      // routes one link carries
  int maxRouteIterations = 0;                // PathFinder iterations of the hardest bitfile
  int placedGraphs = 0;                      // kernel graphs placed and routed (identical ones once)
  int retriedGraphs = 0;                     // of those, routed again (more effort, re-placed) for overuse
  bool routeTimedOut = false;                // some routing stopped at the time budget (LinkOptions::routeSeconds)
  std::vector<OverusedBitfile> overused;     // bitfiles left over capacity, in hypersection order
  double placeOnlyMs = 0, routeMs = 0;       // of placeMs: annealing and routing
  double placeMs = 0;                        // lowering + placement + routing of the unique hypersections
  double placeMsSavedEstimate = 0;           // what placing every instance again would have cost more
};

// The placer's and router's knobs (--compiler-configs-file); router.linkTracks 0: the arch's.
// Routing left over capacity is tried again: once routed with retryEffort x
// the iterations, then re-placed with other seeds up to retryPlacements times
// (the least overused result is kept). Unique kernel graphs are placed and
// routed in parallel on `threads` threads (0: the machine's); each graph's
// result depends on it alone, so the bitfiles are the same for any count.
// Routing is bounded in time: all of a compile's routing passes start within
// routeSeconds, and a graph's retries take at most as long as its first routing.
struct LinkOptions {
  PlacerOptions placer;
  RouterOptions router;
  int retryEffort = 4;
  int retryPlacements = 2;
  int threads = 0;
  double routeSeconds = 120;
};

// One line naming the bitfiles (and their sections) left over capacity, for the compile's refusal.
std::string describeOveruse(const LinkResult& result, const LinkOptions& link);

Expected<LinkResult> linkPlan(const ir::Graph& graph, const partition::Plan& plan, const arch::CostModel& cost,
                              const mapping::MappingOptions& options = {}, const LinkOptions& link = {});

}  // namespace dfc::kernelc
