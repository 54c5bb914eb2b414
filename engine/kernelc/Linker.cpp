#include "kernelc/Linker.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <unordered_map>

#include "arch/FanIn.h"
#include "kernelc/Placer.h"
#include "kernelc/Router.h"
#include "lowering/Lowerer.h"

namespace dfc::kernelc {
namespace {

pef::Bitfile makeBitfile(const partition::Hypersection& hs, const lowering::KernelGraph& kg, const Placement& p,
                         const Routing& routing) {
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
  return b;
}

struct Placed {
  Placement placement;
  Routing routing;
  int64_t rowMajorHops = 0;
  double ms = 0;  // what placing and routing it took
};

// Structural signature of a kernel graph: identical ones (repeated layers that
// are not declared hypersections) place identically, so they are placed once.
std::string signature(const lowering::KernelGraph& kg) {
  std::string sig;
  sig.reserve(kg.ops.size() * 4 + kg.edges.size() * 8);
  auto put = [&](uint32_t v) { sig.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const auto& op : kg.ops) put(static_cast<uint32_t>(op.unit) << 24 | static_cast<uint32_t>(op.role) << 16 |
                                    static_cast<uint32_t>(op.stages & 0xff) << 8);
  put(0xffffffffu);
  for (const auto& e : kg.edges) {
    put(static_cast<uint32_t>(e.from));
    put(static_cast<uint32_t>(e.to));
  }
  return sig;
}

}  // namespace

Expected<LinkResult> linkPlan(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                              const mapping::MappingOptions& options, const LinkOptions& link) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); };
  const arch::ArchSpec& a = cost.arch();
  Placer placer(a);
  RouterOptions routerOptions = link.router;
  if (routerOptions.linkTracks <= 0) routerOptions.linkTracks = arch::linkTracks(a);
  LinkResult result;
  result.linkCapacity = routerOptions.linkTracks;
  result.sections.resize(plan.sections.size());
  std::vector<const Placed*> placements(plan.hypersections.size(), nullptr);
  auto start = Clock::now();
  std::unordered_map<std::string, Placed> placedBySignature;
  auto placeAndRoute = [&](const lowering::KernelGraph& kg, const partition::Section& rep) -> Expected<Placed> {
    auto placeStart = Clock::now();
    auto placed = placer.place(kg, link.placer);
    double placeMs = ms(placeStart);
    if (!placed) return placed.error().withContext("section '" + rep.name + "'");
    result.placeOnlyMs += placeMs;
    auto naive = placer.placeRowMajor(kg);
    auto routeStart = Clock::now();
    Grid grid(a, placed->tiles);
    Routing routing = Router(grid).route(kg, placed->sites, routerOptions);
    double routeMs = ms(routeStart);
    result.routeMs += routeMs;
    ++result.placedGraphs;
    result.maxRouteIterations = std::max(result.maxRouteIterations, routing.iterations);
    return Placed{std::move(*placed), std::move(routing), naive ? naive->totalHops : 0, placeMs + routeMs};
  };
  for (const partition::Hypersection& hs : plan.hypersections) {
    if (hs.sections.empty()) continue;
    const partition::Section& rep = plan.sections.at(static_cast<size_t>(hs.sections.front()));
    int cap = mapping::sectionPcuBudget(a, options, g.node(rep.nodes.front()));
    lowering::KernelGraph kg = lowering::lowerSection(g, rep.nodes, cost, cap);
    std::string sig = signature(kg);
    auto known = options.reuseCompiled ? placedBySignature.find(sig) : placedBySignature.end();
    if (known == placedBySignature.end()) {
      auto placed = placeAndRoute(kg, rep);
      if (!placed) return placed.error();
      known = placedBySignature.insert_or_assign(std::move(sig), std::move(*placed)).first;
    } else {
      result.placeMsSavedEstimate += known->second.ms;  // an identical kernel graph of another hypersection
    }
    if (options.reuseCompiled)
      result.placeMsSavedEstimate += known->second.ms * static_cast<double>(hs.sections.size() - 1);
    if (!options.reuseCompiled) {
      // Measuring what reuse saves: every other instance is lowered, placed and
      // routed again (identical results, discarded).
      for (size_t i = 1; i < hs.sections.size(); ++i) {
        const partition::Section& again = plan.sections.at(static_cast<size_t>(hs.sections[i]));
        auto placed = placeAndRoute(lowering::lowerSection(g, again.nodes, cost, cap), again);
        if (!placed) return placed.error();
      }
    }
    const Placed& placed = known->second;
    result.naiveHops += placed.rowMajorHops;
    result.placedHops += placed.placement.totalHops;
    result.routedHops += placed.routing.wireLength;
    result.overusedLinks += placed.routing.overusedLinks;
    result.forcedLinks += placed.routing.forcedLinks;
    result.maxLinkUse = std::max(result.maxLinkUse, placed.routing.maxLinkUse);
    result.bitfiles.push_back(makeBitfile(hs, kg, placed.placement, placed.routing));
    placements[static_cast<size_t>(hs.id)] = &placed;
  }
  result.placeMs = ms(start);
  for (const partition::Section& s : plan.sections) {
    const Placed* placed = placements.at(static_cast<size_t>(s.hypersection));
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
    double paramBytes = 0;
    for (ir::ValueId v : params) paramBytes += static_cast<double>(g.value(v).type.byteSize());
    double fillUs = static_cast<double>(s.nodes.size()) * a.pcuStages / (a.clockGhz * 1e3);
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
  return result;
}

}  // namespace dfc::kernelc
