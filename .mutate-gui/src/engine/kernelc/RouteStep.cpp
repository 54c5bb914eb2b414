// The route step: each placed graph's chips routed, bounded in time.
#include <algorithm>
#include <chrono>

#include "arch/FanIn.h"
#include "kernelc/LinkSteps.h"
#include "kernelc/StepLoop.h"

namespace dfc::kernelc {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point from) { return std::chrono::duration<double, std::milli>(Clock::now() - from).count(); }

Routing routeOn(const arch::ArchSpec& a, const lowering::KernelGraph& kg, const Placement& p, const RouterOptions& options) {
  Grid grid(a, p.tiles);
  return Router(grid).route(kg, p.sites, options);
}

bool congested(const Routing& r) { return r.overusedLinks > r.forcedLinks; }

// Congestion left (beyond the links no routing can relieve): place again with
// other seeds (congestion follows from where the annealer put things), then
// route the best placement once more; keep the least overused. Fail fast: the
// retries together run no more router passes than the first routing did
// (about as long again; passes, not seconds, so the result is the same on any
// machine and thread count), and none starts past the compile's deadline.
void retryCongested(const arch::ArchSpec& a, const lowering::KernelGraph& kg, const LinkOptions& link,
                    const RouterOptions& router, PlacedGraph& best) {
  if (!congested(best.routing)) return;
  best.retried = true;
  const auto start = Clock::now();
  int passesLeft = best.routing.iterations;
  const int attempts = std::max(0, link.retryPlacements) + 1;
  auto attempt = [&](Placement* placement, const Placement& on, int left) {
    RouterOptions retry = router;
    retry.maxIterations = std::max(1, std::min(router.maxIterations * std::max(1, link.retryEffort), passesLeft / left));
    retry.stallIterations = std::min(retry.stallIterations, retry.maxIterations);
    Routing routing = routeOn(a, kg, on, retry);
    passesLeft -= routing.iterations;
    best.retryPasses += routing.iterations;
    if (routing.overusedLinks >= best.routing.overusedLinks) return;
    if (placement) best.placement = std::move(*placement);
    best.routing = std::move(routing);
  };
  Placer placer(a);
  for (int k = 1; k < attempts && congested(best.routing) && passesLeft > 0 && Clock::now() < router.deadline; ++k) {
    PlacerOptions other = link.placer;
    other.seed = link.placer.seed + static_cast<uint32_t>(k);
    auto again = placer.place(kg, other);
    if (!again) break;
    attempt(&*again, *again, attempts - k + 1);
  }
  if (congested(best.routing) && passesLeft > 0 && Clock::now() < router.deadline) attempt(nullptr, best.placement, 1);
  best.routeMs += msSince(start);
}

}  // namespace

void routeGraphs(const arch::ArchSpec& a, const LoweredPlan& lowered, const LinkOptions& link,
                 std::vector<PlacedGraph>& placed, const StepProgress& progress) {
  RouterOptions router = link.router;
  if (router.linkTracks <= 0) router.linkTracks = arch::linkTracks(a);
  const auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(link.routeSeconds));
  router.deadline = std::min(router.deadline, Clock::now() + budget);
  const std::vector<size_t> distinct = lowered.distinct();
  (void)forEachGraph(link.threads, distinct.size(), progress, [&](size_t j) -> Status {
    const size_t i = distinct[j];
    const auto start = Clock::now();
    placed[i].routing = routeOn(a, lowered.graphs[i], placed[i].placement, router);
    placed[i].routeMs = msSince(start);
    placed[i].firstPasses = placed[i].routing.iterations;
    retryCongested(a, lowered.graphs[i], link, router, placed[i]);
    return {};
  });
}

}  // namespace dfc::kernelc
