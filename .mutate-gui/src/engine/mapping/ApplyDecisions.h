#pragma once
// Honouring a decisions file (mapping/Decisions.h) around the mapper:
//   before mapping, applyDecisions reshapes the subgraphs: a `together` group
//   becomes one subgraph of its own (refused when it is not convex, mixes
//   roles or does not fit one section), a `cut_before` operator starts a
//   subgraph, and with --model-parallel every subgraph holds operators of one
//   chip only. Subgraphs it changes lose their hypersection (they are no
//   longer repeats of anything).
//   after mapping, finishDecisions checks each decision held in the plan,
//   puts each section on its chip and charges the chip-to-chip transfers:
//   a value made on one chip and read on another crosses PCIe, its bytes /
//   pcie_gbps added to the reading section's estimated latency.
#include <string>
#include <vector>

#include "arch/CostModel.h"
#include "mapping/Decisions.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::mapping {

struct DecisionContext {
  bool modelParallel = false;  // --model-parallel: chip decisions allowed, sections on one chip each
  int chips = 1;               // --n-chips
};

// What applyDecisions found: per decision its operators; per node its chip.
struct AppliedDecisions {
  std::vector<std::vector<ir::NodeId>> matched;  // parallel to DecisionFile::decisions
  std::vector<int> nodeChip;                     // per node (all 0 without --model-parallel)
};

// The placement of sections on chips, and what crossing chips costs.
struct ChipPlacement {
  std::vector<int> sectionChip;  // per section
  int crossings = 0;             // (value, reading section) pairs that cross chips
  double transferBytes = 0;
  double transferUs = 0;
};

// One chip of `arch` (as --n-chips 1 would give): a model-parallel section lives on one chip.
arch::ArchSpec oneChipOf(const arch::ArchSpec& arch);

Expected<AppliedDecisions> applyDecisions(const ir::Graph& graph, std::vector<partition::Subgraph>& subgraphs,
                                          const DecisionFile& file, const arch::CostModel& cost,
                                          const MappingOptions& options, const DecisionContext& context);

Expected<ChipPlacement> finishDecisions(const ir::Graph& graph, partition::Plan& plan, const DecisionFile& file,
                                        const AppliedDecisions& applied, double pcieGbps);

// The decisions applied, for the PEF's meta: {"file":..., "model_parallel":..., "chips":N,
// "decisions":[{"line","kind","patterns","chip","role","operators","sections"}], "section_chips":[...],
// "chip_transfers":{"crossings","bytes","us"}}.
std::string decisionsJson(const DecisionFile& file, const AppliedDecisions& applied, const partition::Plan& plan,
                          const ChipPlacement& placement, const DecisionContext& context);

}  // namespace dfc::mapping
