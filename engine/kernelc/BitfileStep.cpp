// The bitfiles step: one bitfile per hypersection from its graph's placement
// and routing, the link totals, and the compile report's layer 3 per section.
#include <algorithm>
#include <set>

#include "arch/FanIn.h"
#include "kernelc/LinkSteps.h"

namespace dfc::kernelc {
namespace {

// The routed network: the tile geometry and every link with a load, as the router negotiated it.
void addNetwork(const arch::ArchSpec& a, const Placement& p, const Routing& routing, pef::Bitfile& b) {
  b.tileRows = static_cast<uint16_t>(std::max(1, a.gridRows));
  b.tileCols = static_cast<uint16_t>(std::max(1, a.gridCols));
  b.tilesPerChip = static_cast<uint16_t>(std::max(1, a.tiles));
  b.linkCapacity = static_cast<uint16_t>(std::min(routing.capacity, 65535));
  for (size_t l = 0; l < routing.linkUse.size(); ++l) {
    if (routing.linkUse[l] == 0) continue;
    const int cell = static_cast<int>(l / 4);
    b.links.push_back({static_cast<uint16_t>(cell / p.gridCols), static_cast<uint16_t>(cell % p.gridCols),
                       static_cast<uint8_t>(l % 4), static_cast<uint16_t>(std::min(routing.linkUse[l], 65535))});
  }
}

pef::Bitfile makeBitfile(const arch::ArchSpec& a, const partition::Hypersection& hs, const lowering::KernelGraph& kg,
                         const Placement& p, const Routing& routing) {
  pef::Bitfile b;
  b.hypersection = hs.id;
  b.name = hs.name;
  b.gridRows = static_cast<uint16_t>(p.gridRows);
  b.gridCols = static_cast<uint16_t>(p.gridCols);
  b.tiles = static_cast<uint16_t>(p.tiles);
  for (const auto& op : kg.ops) {
    const Site& s = p.sites[static_cast<size_t>(op.id)];
    pef::BitfileUnit u;
    u.kind = op.unit == lowering::UnitKind::Pcu ? 0 : 1;
    u.row = static_cast<uint16_t>(s.row);
    u.col = static_cast<uint16_t>(s.col);
    u.tile = static_cast<uint16_t>(s.tile);
    u.config[0] = static_cast<uint32_t>(op.role) << 24 | static_cast<uint32_t>(op.stages & 0xff) << 16 |
                  static_cast<uint32_t>(op.slice & 0xffff);
    u.config[1] = static_cast<uint32_t>(op.node);
    b.units.push_back(u);
  }
  for (size_t i = 0; i < kg.edges.size(); ++i) {
    const auto& e = kg.edges[i];
    int h = routing.edgeHops[i];
    b.routes.push_back({static_cast<uint32_t>(e.from), static_cast<uint32_t>(e.to), static_cast<uint16_t>(std::min(h, 65535))});
  }
  addNetwork(a, p, routing, b);
  return b;
}

// Layer 3 per section: placed units, routed hops, min/max latency considering DRAM.
void fillSectionPlacements(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                           const std::vector<const PlacedGraph*>& placements, LinkResult& result) {
  const arch::ArchSpec& a = cost.arch();
  for (const partition::Section& s : plan.sections) {
    const PlacedGraph* placed = placements.at(static_cast<size_t>(s.hypersection));
    if (!placed) continue;  // a hypersection without sections has no bitfile
    const Placement& p = placed->placement;
    const Routing& routing = placed->routing;
    const auto& e = s.estimate;
    std::set<ir::ValueId> params, produced, consumed;
    for (ir::NodeId id : s.nodes) {
      for (ir::ValueId v : g.node(id).inputs) {
        consumed.insert(v);
        if (g.value(v).kind == ir::ValueKind::Param) params.insert(v);
      }
      for (ir::ValueId v : g.node(id).outputs) produced.insert(v);
    }
    double internalBytes = 0;  // passed between the section's units over the on-chip network
    for (ir::ValueId v : produced)
      if (consumed.count(v)) internalBytes += static_cast<double>(g.value(v).type.byteSize());
    double onChipUs = internalBytes / (cost.linkGbps() * 1e9 * std::max(1, p.pcus)) * 1e6;
    double paramBytes = 0;  // resident between calls, unless a tiled operator streams them pass by pass
    if (s.tiling.empty())
      for (ir::ValueId v : params) paramBytes += static_cast<double>(g.value(v).type.byteSize());
    size_t fills = s.nodes.size();  // one pass through every stage, and one more per extra pass of a tiled op
    for (const partition::OperatorTiling& t : s.tiling) fills += static_cast<size_t>(t.passes - 1);
    double fillUs = static_cast<double>(fills) * a.pcuStages / (a.clockGhz * 1e3);
    double chipUs = std::max(0.0, e.latencyUs - std::max(e.computeUs, e.memoryUs) - fillUs);
    double hopUs = routing.criticalPathHops * a.networkHopNs / 1e3;
    double activationUs = std::max(0.0, e.ddrBytes - paramBytes) / (a.offChipGbps() * 1e9) * 1e6;
    double ddrUs = e.ddrBytes / (a.ddrGbps * 1e9) * 1e6;
    SectionPlacement& sp = result.sections.at(static_cast<size_t>(s.id));
    sp.pcus = p.pcus;
    sp.pmus = p.pmus;
    sp.tiles = p.tiles;
    sp.totalHops = routing.wireLength;
    sp.placedHops = p.totalHops;
    sp.criticalPathHops = routing.criticalPathHops;
    sp.minLatencyUs = std::max({e.computeUs, onChipUs, activationUs}) + fillUs + hopUs;
    sp.maxLatencyUs = std::max({e.computeUs, onChipUs, ddrUs}) + fillUs + hopUs + chipUs;
  }
}

// Totals over the distinct graphs placed.
void addGraphTotals(const LoweredPlan& lowered, const std::vector<PlacedGraph>& placed, LinkResult& result) {
  const std::vector<size_t> distinct = lowered.distinct();
  for (size_t i : distinct) {
    const PlacedGraph& p = placed[i];
    result.placeOnlyMs += p.placeMs;
    result.routeMs += p.routeMs;
    result.maxRouteIterations = std::max(result.maxRouteIterations, p.routing.iterations);
    result.retriedGraphs += p.retried ? 1 : 0;
    result.routeTimedOut |= p.routing.timedOut;
  }
  result.placedGraphs = static_cast<int>(distinct.size());
}

}  // namespace

LinkResult assembleLink(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                        const mapping::MappingOptions& options, const LoweredPlan& lowered,
                        const std::vector<PlacedGraph>& placed, const LinkOptions& link) {
  LinkResult result;
  result.linkCapacity = link.router.linkTracks > 0 ? link.router.linkTracks : arch::linkTracks(cost.arch());
  result.sections.resize(plan.sections.size());
  addGraphTotals(lowered, placed, result);
  std::vector<const PlacedGraph*> placements(plan.hypersections.size(), nullptr);
  for (const partition::Hypersection& hs : plan.hypersections) {
    const auto id = static_cast<size_t>(hs.id);
    if (lowered.placedAs[id] < 0) continue;
    const PlacedGraph& p = placed[static_cast<size_t>(lowered.placedAs[id])];
    const double ms = p.placeMs + p.routeMs;
    if (lowered.placedAs[id] != static_cast<int>(id)) result.placeMsSavedEstimate += ms;  // an identical graph's
    if (options.reuseCompiled) result.placeMsSavedEstimate += ms * static_cast<double>(hs.sections.size() - 1);
    result.naiveHops += p.rowMajorHops;
    result.placedHops += p.placement.totalHops;
    result.routedHops += p.routing.wireLength;
    result.overusedLinks += p.routing.overusedLinks;
    result.forcedLinks += p.routing.forcedLinks;
    result.maxLinkUse = std::max(result.maxLinkUse, p.routing.maxLinkUse);
    result.bitfiles.push_back(
        makeBitfile(cost.arch(), hs, lowered.graphs[id], p.placement, p.routing));  // its own node ids
    if (p.routing.overusedLinks > 0) {
      OverusedBitfile o{hs.name, {}, p.routing.overusedLinks, p.routing.forcedLinks};
      for (int sid : hs.sections) o.sections.push_back(plan.sections.at(static_cast<size_t>(sid)).name);
      result.overused.push_back(std::move(o));
    }
    placements[id] = &p;
  }
  fillSectionPlacements(g, plan, cost, placements, result);
  return result;
}

}  // namespace dfc::kernelc
