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
#include "support/ThreadPool.h"

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

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); }

struct Placed {
  Placement placement;
  Routing routing;
  int64_t rowMajorHops = 0;
  double placeMs = 0, routeMs = 0;  // annealing, routing (retries included)
  double ms = 0;                    // what placing and routing it took
  bool retried = false;
};

Routing routeOn(const arch::ArchSpec& a, const lowering::KernelGraph& kg, const Placement& p,
                const RouterOptions& options) {
  Grid grid(a, p.tiles);
  return Router(grid).route(kg, p.sites, options);
}

// Routing left over capacity (beyond the links no routing can relieve): route
// again with more effort, then re-place with other seeds; keep the least overused.
void retryOverused(const Placer& placer, const arch::ArchSpec& a, const lowering::KernelGraph& kg,
                   const LinkOptions& link, const RouterOptions& router, Placed& best) {
  if (best.routing.overusedLinks <= best.routing.forcedLinks) return;
  best.retried = true;
  auto start = Clock::now();
  RouterOptions harder = router;
  harder.maxIterations *= std::max(1, link.retryEffort);
  harder.stallIterations *= std::max(1, link.retryEffort);
  // Fail fast: the retries together take no longer than the first routing did.
  const auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(best.routeMs));
  harder.deadline = std::min(router.deadline, start + budget);
  auto keepIfBetter = [&](Placement* placement, Routing routing) {
    if (routing.overusedLinks >= best.routing.overusedLinks) return;
    if (placement) best.placement = std::move(*placement);
    best.routing = std::move(routing);
  };
  keepIfBetter(nullptr, routeOn(a, kg, best.placement, harder));
  for (int k = 1; k <= link.retryPlacements && best.routing.overusedLinks > best.routing.forcedLinks &&
                  Clock::now() < harder.deadline;
       ++k) {
    PlacerOptions other = link.placer;
    other.seed = link.placer.seed + static_cast<uint32_t>(k);
    auto again = placer.place(kg, other);
    if (!again) break;
    Routing routing = routeOn(a, kg, *again, harder);
    keepIfBetter(&*again, std::move(routing));
  }
  best.routeMs += msSince(start);
}

Expected<Placed> placeAndRoute(const arch::ArchSpec& a, const lowering::KernelGraph& kg, const LinkOptions& link,
                               const RouterOptions& router) {
  Placer placer(a);
  Placed out;
  auto start = Clock::now();
  auto placed = placer.place(kg, link.placer);
  if (!placed) return placed.error();
  out.placeMs = msSince(start);
  auto routeStart = Clock::now();
  out.routing = routeOn(a, kg, *placed, router);
  out.routeMs = msSince(routeStart);
  out.placement = std::move(*placed);
  retryOverused(placer, a, kg, link, router, out);
  auto naive = placer.placeRowMajor(kg);
  out.rowMajorHops = naive ? naive->totalHops : 0;
  out.ms = out.placeMs + out.routeMs;
  return out;
}

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

namespace {

// One kernel graph to place and route: a hypersection's, or (without reuse) one more instance's.
struct Job {
  const lowering::KernelGraph* kg = nullptr;
  const partition::Section* rep = nullptr;
};

// Lowers each hypersection's first instance (kgs[hs]); identical kernel graphs
// share a job. jobOf[hs]: its job; sharesOther[hs]: that job is another hypersection's.
struct Jobs {
  std::vector<lowering::KernelGraph> kgs;
  std::vector<lowering::KernelGraph> again;  // !reuseCompiled: the other instances, placed and discarded
  std::vector<Job> list;
  std::vector<int> jobOf;
  std::vector<bool> sharesOther;
};

Jobs lowerJobs(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
               const mapping::MappingOptions& options) {
  Jobs j;
  j.kgs.resize(plan.hypersections.size());
  j.jobOf.assign(plan.hypersections.size(), -1);
  j.sharesOther.assign(plan.hypersections.size(), false);
  size_t againCount = 0;
  if (!options.reuseCompiled)
    for (const auto& hs : plan.hypersections) againCount += hs.sections.empty() ? 0 : hs.sections.size() - 1;
  j.again.reserve(againCount);  // Job points into it
  std::unordered_map<std::string, int> bySignature;
  for (const partition::Hypersection& hs : plan.hypersections) {
    if (hs.sections.empty()) continue;
    const auto id = static_cast<size_t>(hs.id);
    const partition::Section& rep = plan.sections.at(static_cast<size_t>(hs.sections.front()));
    int cap = mapping::sectionPcuBudget(cost.arch(), options, g.node(rep.nodes.front()));
    j.kgs[id] = lowering::lowerSection(g, rep.nodes, cost, cap, -1, rep.tiling);
    auto [it, fresh] = options.reuseCompiled ? bySignature.try_emplace(signature(j.kgs[id]), static_cast<int>(j.list.size()))
                                             : std::pair{bySignature.end(), true};
    j.jobOf[id] = fresh ? static_cast<int>(j.list.size()) : it->second;
    j.sharesOther[id] = !fresh;
    if (fresh) j.list.push_back({&j.kgs[id], &rep});
    if (options.reuseCompiled) continue;
    // Measuring what reuse saves: every other instance is lowered, placed and routed again.
    for (size_t i = 1; i < hs.sections.size(); ++i) {
      const partition::Section& inst = plan.sections.at(static_cast<size_t>(hs.sections[i]));
      j.again.push_back(lowering::lowerSection(g, inst.nodes, cost, cap, -1, inst.tiling));
      j.list.push_back({&j.again.back(), &inst});
    }
  }
  return j;
}

// Layer 3 per section: placed units, routed hops, min/max latency considering DRAM.
void fillSectionPlacements(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                           const std::vector<const Placed*>& placements, LinkResult& result) {
  const arch::ArchSpec& a = cost.arch();
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

}  // namespace

Expected<LinkResult> linkPlan(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                              const mapping::MappingOptions& options, const LinkOptions& link) {
  const arch::ArchSpec& a = cost.arch();
  RouterOptions routerOptions = link.router;
  if (routerOptions.linkTracks <= 0) routerOptions.linkTracks = arch::linkTracks(a);
  routerOptions.deadline = std::min(routerOptions.deadline,
                                    Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(link.routeSeconds)));
  LinkResult result;
  result.linkCapacity = routerOptions.linkTracks;
  result.sections.resize(plan.sections.size());
  auto start = Clock::now();
  Jobs jobs = lowerJobs(g, plan, cost, options);
  // Each job's result depends on its graph alone: the same for any thread count.
  std::vector<Placed> done(jobs.list.size());
  support::ThreadPool pool(link.threads);
  Status st = pool.parallelFor(0, static_cast<int64_t>(jobs.list.size()), 1, [&](int64_t b, int64_t e) -> Status {
    for (int64_t i = b; i < e; ++i) {
      const Job& job = jobs.list[static_cast<size_t>(i)];
      auto placed = placeAndRoute(a, *job.kg, link, routerOptions);
      if (!placed) return placed.error().withContext("section '" + job.rep->name + "'");
      done[static_cast<size_t>(i)] = std::move(*placed);
    }
    return {};
  });
  if (!st) return st.error();
  for (const Placed& p : done) {
    result.placeOnlyMs += p.placeMs;
    result.routeMs += p.routeMs;
    result.maxRouteIterations = std::max(result.maxRouteIterations, p.routing.iterations);
    result.retriedGraphs += p.retried ? 1 : 0;
    result.routeTimedOut |= p.routing.timedOut;
  }
  result.placedGraphs = static_cast<int>(done.size());
  std::vector<const Placed*> placements(plan.hypersections.size(), nullptr);
  for (const partition::Hypersection& hs : plan.hypersections) {
    const auto id = static_cast<size_t>(hs.id);
    if (jobs.jobOf[id] < 0) continue;
    const Placed& placed = done[static_cast<size_t>(jobs.jobOf[id])];
    if (jobs.sharesOther[id]) result.placeMsSavedEstimate += placed.ms;  // an identical kernel graph of another hypersection
    if (options.reuseCompiled) result.placeMsSavedEstimate += placed.ms * static_cast<double>(hs.sections.size() - 1);
    result.naiveHops += placed.rowMajorHops;
    result.placedHops += placed.placement.totalHops;
    result.routedHops += placed.routing.wireLength;
    result.overusedLinks += placed.routing.overusedLinks;
    result.forcedLinks += placed.routing.forcedLinks;
    result.maxLinkUse = std::max(result.maxLinkUse, placed.routing.maxLinkUse);
    result.bitfiles.push_back(makeBitfile(hs, jobs.kgs[id], placed.placement, placed.routing));
    if (placed.routing.overusedLinks > 0) {
      OverusedBitfile o{hs.name, {}, placed.routing.overusedLinks, placed.routing.forcedLinks};
      for (int sid : hs.sections) o.sections.push_back(plan.sections.at(static_cast<size_t>(sid)).name);
      result.overused.push_back(std::move(o));
    }
    placements[id] = &placed;
  }
  result.placeMs = msSince(start);
  fillSectionPlacements(g, plan, cost, placements, result);
  return result;
}

std::string describeOveruse(const LinkResult& r, const LinkOptions& link) {
  constexpr size_t kShown = 4;
  std::string out = "routing left " + std::to_string(r.overusedLinks) + " links over capacity (" +
                    std::to_string(r.linkCapacity) + " routes per link) after retrying with " +
                    std::to_string(link.retryEffort) + "x router iterations and " +
                    std::to_string(link.retryPlacements) + " re-placements" +
                    (r.routeTimedOut ? " (routing stopped at its time budget)" : "") + ":";
  for (size_t i = 0; i < r.overused.size() && i < kShown; ++i) {
    const OverusedBitfile& o = r.overused[i];
    out += (i ? "; " : " ") + o.hypersection + " " + std::to_string(o.links) + " links";
    if (o.forced > 0) out += " (" + std::to_string(o.forced) + " into units fed by more nets than their links carry)";
    out += " in section " + o.sections.front();
    if (o.sections.size() > 1) out += " and " + std::to_string(o.sections.size() - 1) + " more sharing its bitfile";
  }
  if (r.overused.size() > kShown) out += "; and " + std::to_string(r.overused.size() - kShown) + " more bitfiles";
  return out;
}

}  // namespace dfc::kernelc
