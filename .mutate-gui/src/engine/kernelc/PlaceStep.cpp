// The place step: each distinct kernel graph on the fewest tiles that hold it.
#include <chrono>

#include "kernelc/LinkSteps.h"
#include "kernelc/StepLoop.h"

namespace dfc::kernelc {

Expected<std::vector<PlacedGraph>> placeGraphs(const arch::ArchSpec& a, const LoweredPlan& lowered,
                                               const LinkOptions& link, const StepProgress& progress) {
  using Clock = std::chrono::steady_clock;
  std::vector<PlacedGraph> placed(lowered.graphs.size());
  const std::vector<size_t> distinct = lowered.distinct();
  Placer placer(a);
  Status st = forEachGraph(link.threads, distinct.size(), progress, [&](size_t j) -> Status {
    const size_t i = distinct[j];
    const auto start = Clock::now();
    auto p = placer.place(lowered.graphs[i], link.placer);
    if (!p) return p.error().withContext("section '" + lowered.from[i]->name + "'");
    placed[i].placement = std::move(*p);
    placed[i].placeMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    auto naive = placer.placeRowMajor(lowered.graphs[i]);
    placed[i].rowMajorHops = naive ? naive->totalHops : 0;
    return {};
  });
  if (!st) return st.error();
  return placed;
}

}  // namespace dfc::kernelc
