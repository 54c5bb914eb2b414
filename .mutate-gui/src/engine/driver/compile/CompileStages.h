#pragma once
// The compile as a table of stages over one CompileState (the values flowing
// from stage to stage). driver::compile runs the table; private to driver/.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "arch/CostModel.h"
#include "driver/Stages.h"
#include "driver/compile/Compiler.h"
#include "driver/compile/DataParallelCompile.h"
#include "frontend/ModelZoo.h"
#include "kernelc/LinkSteps.h"
#include "mapping/ApplyDecisions.h"
#include "partition/HypersectionCache.h"
#include "pef/Pef.h"

namespace dfc::driver {

struct CompileState {
  CompileState(const CompileOptions& o, std::function<void(const std::string&, double)> sub)
      : opts(o), subProgress(std::move(sub)) {}

  const CompileOptions& opts;
  // Progress inside the running stage: a label ("passes: cse done") and the
  // fraction of the stage done.
  std::function<void(const std::string& label, double fraction)> subProgress;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  ResolvedOptions resolved;                          // validate
  std::shared_ptr<void> logSink;                     // validate: the compile log, closed with the state
  std::optional<arch::CostModel> cost;               // validate: over resolved.arch
  frontend::Model model;                             // frontend
  pef::Pef pef;                                      // autograd on: the graph, then plan, bitfiles, report
  std::vector<partition::Subgraph> subgraphs;        // decompose
  partition::HypersectionCache<partition::MappedSubgraph> mappingCache;  // map: once per hypersection
  mapping::MappingOptions mappingOptions;            // map, lower
  kernelc::LinkOptions linkOptions;                  // lower: the placer's and router's knobs
  kernelc::LoweredPlan lowered;                      // lower: the distinct kernel graphs
  std::vector<kernelc::PlacedGraph> placed;          // place, route: each graph's placement and routing
  kernelc::LinkResult link;                          // bitfiles
  mapping::AppliedDecisions decisions;               // map: --mac-human-decision, as applied
  DataParallelPlan dataParallel;                     // data-parallel, map: the gradient buckets (--data-parallel)
  bool pefWritten = false;                           // write-pef: from here on the compile is not cancelled
  CompileResult result;

  // Set by a stage that produced a graph worth dumping under --debug; the
  // stage loop dumps it as <pef-name>.<stage>.dfir.
  const ir::Graph* dumpGraph = nullptr;
  void dump(const ir::Graph& graph, const std::string& suffix) const;
};

std::span<const Stage<CompileState>> compileStages();

// The kernel compiler's stages (driver/compile/KernelStages.cpp).
Status lowerStage(CompileState& s);
Status placeStage(CompileState& s);
Status routeStage(CompileState& s);
Status bitfilesStage(CompileState& s);

}  // namespace dfc::driver
