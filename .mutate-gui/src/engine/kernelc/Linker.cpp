#include "kernelc/Linker.h"

#include <chrono>

#include "kernelc/LinkSteps.h"

namespace dfc::kernelc {

Expected<LinkResult> linkPlan(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                              const mapping::MappingOptions& options, const LinkOptions& link) {
  const auto start = std::chrono::steady_clock::now();
  LoweredPlan lowered = lowerPlan(g, plan, cost, options);
  auto placed = placeGraphs(cost.arch(), lowered, link);
  if (!placed) return placed.error();
  routeGraphs(cost.arch(), lowered, link, *placed);
  LinkResult result = assembleLink(g, plan, cost, options, lowered, *placed, link);
  result.placeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
