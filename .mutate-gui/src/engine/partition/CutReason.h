#pragma once
// Why a section starts where it does: the reason for the boundary between a
// section and the one before it (in section id order, the order the mapper cut
// them). The decomposer, a decisions file and the mapper each record the cuts
// they make; the PEF stores them and `dfc inspect --why` prints them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dfc::partition {

enum class CutKind {
  None,            // not recorded (the first section, or a PEF from before format 1.3)
  RoleChange,      // forward / backward / optimizer / reduce work never shares a section
  OperatorMode,    // -o0: one operator per section
  FusionRule,      // -o1: a rule's match ends or starts here
  Unfused,         // -o1: an operator no rule fused, a section of its own
  Hyperfunction,   // -o3 with hypersections: a new hyperfunction instance (layer) starts
  SubgraphOps,     // fusion.max_subgraph_ops split a longer subgraph
  Decision,        // a decisions file entry (together group, cut_before)
  Chip,            // --model-parallel: the next operator lives on another chip
  ReduceBucket,    // --data-parallel: one section per gradient all-reduce bucket
  PcuBudget,       // the open section's PCUs plus the next operator's exceed the budget
  PmuBudget,       // the same for PMUs
  SectionOps,      // mapping.max_section_ops reached
  AttentionBlock,  // nlp -o3: an attention block that fits only alone starts
  TiledOperator,   // an operator too big for a section, tiled: a section of its own
  AfterTiled,      // the section after a tiled operator's own
};

struct CutReason {
  CutKind kind = CutKind::None;
  std::string detail;  // one readable phrase naming the rule / operator / decision and the figures
  // The figures of a budget cut: the open section's use, the next operator's, the limit.
  int64_t used = 0;
  int64_t adding = 0;
  int64_t limit = 0;
};

std::string_view cutKindName(CutKind kind);  // "pcu_budget", ...; "not_recorded" for None
std::optional<CutKind> parseCutKind(std::string_view name);

}  // namespace dfc::partition
