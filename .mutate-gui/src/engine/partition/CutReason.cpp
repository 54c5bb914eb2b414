#include "partition/CutReason.h"

#include <array>
#include <utility>

namespace dfc::partition {
namespace {

constexpr std::array<std::pair<CutKind, std::string_view>, 16> kNames{{
    {CutKind::None, "not_recorded"},
    {CutKind::RoleChange, "role_change"},
    {CutKind::OperatorMode, "operator_mode"},
    {CutKind::FusionRule, "fusion_rule"},
    {CutKind::Unfused, "unfused"},
    {CutKind::Hyperfunction, "hyperfunction"},
    {CutKind::SubgraphOps, "max_subgraph_ops"},
    {CutKind::Decision, "decision"},
    {CutKind::Chip, "chip"},
    {CutKind::ReduceBucket, "reduce_bucket"},
    {CutKind::PcuBudget, "pcu_budget"},
    {CutKind::PmuBudget, "pmu_budget"},
    {CutKind::SectionOps, "max_section_ops"},
    {CutKind::AttentionBlock, "attention_block"},
    {CutKind::TiledOperator, "tiled_operator"},
    {CutKind::AfterTiled, "after_tiled"},
}};

}  // namespace

std::string_view cutKindName(CutKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "not_recorded";
}

std::optional<CutKind> parseCutKind(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return std::nullopt;
}

}  // namespace dfc::partition
