// After mapping: each decision checked against the plan, sections on their
// chips, chip-to-chip transfers charged, and the record for the PEF's meta.
#include <set>

#include "mapping/ApplyDecisions.h"
#include "support/JsonWriter.h"

namespace dfc::mapping {
namespace {

std::vector<int> sectionOfNodes(const ir::Graph& g, const partition::Plan& plan) {
  std::vector<int> of(g.nodes.size(), -1);
  for (const partition::Section& s : plan.sections)
    for (ir::NodeId id : s.nodes) of[static_cast<size_t>(id)] = s.id;
  return of;
}

// The mapper kept what applyDecisions arranged; a miss here is a bug, not bad input.
Status checkHonoured(const ir::Graph& g, const partition::Plan& plan, const DecisionFile& file,
                     const AppliedDecisions& applied, const std::vector<int>& sectionOf) {
  for (size_t i = 0; i < file.decisions.size(); ++i) {
    const Decision& d = file.decisions[i];
    const std::vector<ir::NodeId>& nodes = applied.matched[i];
    for (ir::NodeId id : nodes) {
      const int s = sectionOf[static_cast<size_t>(id)];
      const bool ok = s >= 0 && (d.kind != DecisionKind::Together || s == sectionOf[static_cast<size_t>(nodes.front())]) &&
                      (d.kind != DecisionKind::CutBefore || plan.sections[static_cast<size_t>(s)].nodes.front() == id);
      if (!ok)
        return internalError(file.where(d) + ": the mapper did not honour this decision at '" + g.node(id).name + "'");
    }
  }
  return {};
}

Status placeOnChips(const partition::Plan& plan, const DecisionFile& file,
                    const AppliedDecisions& applied, ChipPlacement& out) {
  for (const partition::Section& s : plan.sections) {
    const int chip = applied.nodeChip[static_cast<size_t>(s.nodes.front())];
    for (ir::NodeId id : s.nodes)
      if (applied.nodeChip[static_cast<size_t>(id)] != chip)
        return internalError(file.path + ": section " + s.name + " spans chips " + std::to_string(chip) + " and " +
                             std::to_string(applied.nodeChip[static_cast<size_t>(id)]));
    out.sectionChip.push_back(chip);
  }
  return {};
}

// A value made on one chip and read by a section on another crosses PCIe once per reading section.
void chargeTransfers(const ir::Graph& g, partition::Plan& plan, const std::vector<int>& sectionOf, double pcieGbps,
                     ChipPlacement& out) {
  for (partition::Section& s : plan.sections) {
    const int chip = out.sectionChip[static_cast<size_t>(s.id)];
    std::set<ir::ValueId> crossing;
    for (ir::NodeId id : s.nodes)
      for (ir::ValueId in : g.node(id).inputs) {
        const ir::NodeId producer = g.value(in).producer;
        if (producer == ir::kNoNode) continue;  // inputs, weights, state: in DDR, not on another chip
        const int from = sectionOf[static_cast<size_t>(producer)];
        if (from >= 0 && from != s.id && out.sectionChip[static_cast<size_t>(from)] != chip) crossing.insert(in);
      }
    double bytes = 0;
    for (ir::ValueId v : crossing) bytes += static_cast<double>(g.value(v).type.byteSize());
    const double us = pcieGbps > 0 ? bytes / (pcieGbps * 1e9) * 1e6 : 0.0;
    s.estimate.latencyUs += us;
    out.crossings += static_cast<int>(crossing.size());
    out.transferBytes += bytes;
    out.transferUs += us;
  }
}

}  // namespace

Expected<ChipPlacement> finishDecisions(const ir::Graph& g, partition::Plan& plan, const DecisionFile& file,
                                        const AppliedDecisions& applied, double pcieGbps) {
  const std::vector<int> sectionOf = sectionOfNodes(g, plan);
  DFC_TRY(checkHonoured(g, plan, file, applied, sectionOf));
  ChipPlacement placement;
  DFC_TRY(placeOnChips(plan, file, applied, placement));
  chargeTransfers(g, plan, sectionOf, pcieGbps, placement);
  return placement;
}

std::string decisionsJson(const DecisionFile& file, const AppliedDecisions& applied, const partition::Plan& plan,
                          const ChipPlacement& placement, const DecisionContext& context) {
  std::vector<int> sectionOf;
  for (const partition::Section& s : plan.sections)
    for (ir::NodeId id : s.nodes) {
      if (sectionOf.size() <= static_cast<size_t>(id)) sectionOf.resize(static_cast<size_t>(id) + 1, -1);
      sectionOf[static_cast<size_t>(id)] = s.id;
    }
  support::JsonWriter w;
  w.beginObject().field("file", file.path).field("model_parallel", context.modelParallel).field("chips", context.chips);
  w.key("decisions").beginArray();
  for (size_t i = 0; i < file.decisions.size(); ++i) {
    const Decision& d = file.decisions[i];
    w.beginObject().field("line", d.line).field("kind", decisionKindName(d.kind)).field("patterns", patternText(d));
    w.field("chip", d.chip).field("role", d.role ? ir::roleName(*d.role) : std::string_view{});
    w.field("operators", static_cast<int64_t>(applied.matched[i].size()));
    std::set<int> sections;
    for (ir::NodeId id : applied.matched[i])
      if (static_cast<size_t>(id) < sectionOf.size() && sectionOf[static_cast<size_t>(id)] >= 0)
        sections.insert(sectionOf[static_cast<size_t>(id)]);
    w.key("sections").beginArray();
    for (int s : sections) w.value(s);
    w.endArray().endObject();
  }
  w.endArray().key("section_chips").beginArray();
  for (int chip : placement.sectionChip) w.value(chip);
  w.endArray().key("chip_transfers").beginObject().field("crossings", placement.crossings);
  w.field("bytes", placement.transferBytes).field("us", placement.transferUs).endObject();
  w.endObject();
  return w.take();
}

}  // namespace dfc::mapping
