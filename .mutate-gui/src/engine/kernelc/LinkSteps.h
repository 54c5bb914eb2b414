#pragma once
// The kernel compiler as four steps the compile's stage table lists, each
// taking and returning values (linkPlan in kernelc/Linker.h runs all four):
//   lower    -> one kernel graph per distinct structure: identical graphs
//               (repeated layers, declared hypersections or not) are placed
//               and routed once (a structural hash, the kernel compiler's
//               own reuse)
//   place    -> each graph on the fewest tiles that hold it (over its chips)
//   route    -> each chip's mesh on its own (an edge between chips goes over
//               the modelled chip link), bounded in time; congestion left
//               is retried with more passes, then other placements, within
//               as long again as the first routing took
//   bitfiles -> one bitfile per hypersection and the report's layer 3
#include <functional>
#include <vector>

#include "kernelc/Linker.h"

namespace dfc::kernelc {

struct LoweredPlan {
  // graphs[h]: hypersection h's first instance lowered (empty without sections);
  // after them, without reuse, every other instance (placed and dropped, to measure what reuse saves).
  std::vector<lowering::KernelGraph> graphs;
  std::vector<const partition::Section*> from;  // per graph: the section it was lowered from (errors name it)
  // per graph: the graph whose placement and routing it takes (itself, or an earlier identical one); -1: none
  std::vector<int> placedAs;
  std::vector<size_t> distinct() const;         // the graphs placed and routed: placedAs[i] == i
};

struct PlacedGraph {  // indexed like LoweredPlan::graphs; filled for its distinct() ones
  Placement placement;
  Routing routing;
  int64_t rowMajorHops = 0;  // the same graph placed naively, row-major (the log's baseline)
  double placeMs = 0, routeMs = 0;
  bool retried = false;      // routed again (other seeds, more passes) for congestion
  int firstPasses = 0;       // router passes of the first routing
  int retryPasses = 0;       // of the retries together: never more than firstPasses
};

// Called with the fraction of the step done (0..1), from any thread, serialized.
using StepProgress = std::function<void(double fraction)>;

LoweredPlan lowerPlan(const ir::Graph& graph, const partition::Plan& plan, const arch::CostModel& cost,
                      const mapping::MappingOptions& options);

Expected<std::vector<PlacedGraph>> placeGraphs(const arch::ArchSpec& arch, const LoweredPlan& lowered,
                                               const LinkOptions& link, const StepProgress& progress = {});

void routeGraphs(const arch::ArchSpec& arch, const LoweredPlan& lowered, const LinkOptions& link,
                 std::vector<PlacedGraph>& placed, const StepProgress& progress = {});

LinkResult assembleLink(const ir::Graph& graph, const partition::Plan& plan, const arch::CostModel& cost,
                        const mapping::MappingOptions& options, const LoweredPlan& lowered,
                        const std::vector<PlacedGraph>& placed, const LinkOptions& link);

}  // namespace dfc::kernelc
