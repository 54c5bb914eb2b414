#pragma once
// Mapping: each subgraph becomes one or more sections that fit the chip's
// (scaled) PCUs and PMUs; the Scheduler orders the section calls.
// An op that wants more PCUs than a section may use runs on fewer (slower);
// an op whose PMUs (resident weights, buffers) exceed the budget is tiled
// (arch/OperatorTiling.h): a section of its own run in passes, recorded in
// Section::tiling. One whose minimum PCUs exceed it, or that no tiling fits,
// cannot fit: the error names it, the resource, and a remedy.
#include <vector>

#include "arch/CostModel.h"
#include "partition/Decomposer.h"
#include "partition/HypersectionCache.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::mapping {

struct MappingOptions {
  // Fraction of the chip's PCUs/PMUs a section may use, per section type.
  double forwardScale = 1.0;
  double backwardScale = 1.0;
  double optimizerScale = 1.0;
  // Optimizer-role ops that are not parameter updates (gradient norms, clipping):
  // the third of four --resources-scaling-factors. < 0: use optimizerScale.
  double gradNormScale = -1.0;
  // Compile once, reuse: with a cache, a subgraph whose hypersection was already
  // mapped takes that cut and those estimates instead of recomputing them.
  partition::HypersectionCache<partition::MappedSubgraph>* cache = nullptr;
  // --compiler-mode nlp at -o3: an attention block (partition::attentionScope) that
  // fits in a section is never cut: the current section closes before it instead.
  bool keepAttentionBlocks = false;
  // false: the linker lowers, places and routes every section instance, not once
  // per hypersection or identical kernel graph (to measure what reuse saves).
  bool reuseCompiled = true;
  // false (--mac-v2, the first mapper's rule): a subgraph cut into several
  // sections gives each piece a hypersection of its own; only a subgraph that
  // fits in one section shares its hypersection with its repeats.
  bool shareSplitPieces = true;
  // Section-size cap in operators (--compiler-configs-file mapping.max_section_ops; 0: none).
  int maxSectionOps = 0;
  // PCUs a section may use at most, below its scaled share of the chips (mapping.max_section_pcus; 0: none).
  int maxSectionPcus = 0;
};

// PCUs a section whose first node is `first` may use (its scaled share of the chips).
int sectionPcuBudget(const arch::ArchSpec& arch, const MappingOptions& options, const ir::Node& first);
int sectionPmuBudget(const arch::ArchSpec& arch, const MappingOptions& options, const ir::Node& first);

// Parses --resources-scaling-factors values: 3 (forward, backward, optimizer)
// or 4 (forward, backward, gradient normalization, optimizer), each in (0, 1].
Expected<MappingOptions> parseScalingFactors(const std::vector<std::string>& values);

Expected<partition::Plan> mapSections(const ir::Graph& graph, const std::vector<partition::Subgraph>& subgraphs,
                                      const arch::CostModel& cost, partition::OptLevel level,
                                      const MappingOptions& options = {});

}  // namespace dfc::mapping
