// The kernel compiler's stages of the compile (kernelc/LinkSteps.h): lower,
// place, route, bitfiles. Each reports its progress per graph done.
#include <spdlog/spdlog.h>

#include "driver/compile/CompileStages.h"
#include "driver/compile/LegacyMapping.h"

namespace dfc::driver {
namespace {

kernelc::StepProgress stepProgress(CompileState& s, const char* stage) {
  return [&s, stage](double fraction) { s.subProgress(stage, fraction); };
}

}  // namespace

Status lowerStage(CompileState& s) {
  s.linkOptions = s.resolved.config.link;
  if (s.opts.macV2) useLegacyPlacer(s.linkOptions);
  s.lowered = kernelc::lowerPlan(s.pef.graph, s.pef.plan, *s.cost, s.mappingOptions);
  spdlog::info("lowered {} hypersections to {} distinct kernel graphs", s.pef.plan.hypersections.size(),
               s.lowered.graphs.size());
  return {};
}

Status placeStage(CompileState& s) {
  auto placed = kernelc::placeGraphs(s.cost->arch(), s.lowered, s.linkOptions, stepProgress(s, "place"));
  if (!placed) return placed.error();
  s.placed = std::move(*placed);
  return {};
}

Status routeStage(CompileState& s) {
  kernelc::routeGraphs(s.cost->arch(), s.lowered, s.linkOptions, s.placed, stepProgress(s, "route"));
  return {};
}

// Bitfiles and layer 3; never an illegally routed PEF, unless asked for
// (--allow-overuse, to investigate).
Status bitfilesStage(CompileState& s) {
  kernelc::LinkResult link =
      kernelc::assembleLink(s.pef.graph, s.pef.plan, *s.cost, s.mappingOptions, s.lowered, s.placed, s.linkOptions);
  if (link.overusedLinks > 0 && !s.opts.allowOveruse)
    return makeError(kernelc::describeOveruse(link, s.linkOptions) +
                     "; no PEF written (more chips, smaller --resources-scaling-factors, or --allow-overuse to keep it)");
  if (link.overusedLinks > 0) spdlog::warn("--allow-overuse: the PEF's routing has {} links over capacity", link.overusedLinks);
  link.placeMs = link.placeOnlyMs + link.routeMs;
  s.link = std::move(link);
  const kernelc::LinkResult& l = s.link;
  s.pef.bitfiles = l.bitfiles;
  CompileResult& r = s.result;
  r.placedHops = l.placedHops;
  r.rowMajorHops = l.naiveHops;
  r.routedHops = l.routedHops;
  r.overusedLinks = l.overusedLinks;
  r.numBitfiles = static_cast<int>(l.bitfiles.size());
  r.compileMsSavedEstimate += l.placeMsSavedEstimate;  // instances reuse their hypersection's bitfile
  spdlog::info("placed {} bitfiles ({} graphs, {:.1f} ms): {} hops ({} row-major); routed {} hops in {:.1f} ms "
               "(<= {} iterations, {} retried), max link use {}/{}, {} overused links ({} into units fed by too many nets)",
               r.numBitfiles, l.placedGraphs, l.placeOnlyMs, r.placedHops, r.rowMajorHops, l.routedHops, l.routeMs,
               l.maxRouteIterations, l.retriedGraphs, l.maxLinkUse, l.linkCapacity, l.overusedLinks, l.forcedLinks);
  return {};
}

}  // namespace dfc::driver
