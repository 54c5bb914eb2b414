#include "runtime/ArenaPlan.h"

#include <algorithm>
#include <map>

#include "runtime/MemoryPlanner.h"
#include "runtime/StepFusion.h"

namespace dfc::runtime {

using ir::ValueKind;

Expected<ArenaPlan> planArena(const ir::Graph& graph, const std::vector<size_t>& schedule,
                              const std::vector<std::vector<FusionGroup>>& groups) {
  const int kUnset = -1;
  std::vector<int> producedAt(graph.values.size(), kUnset), lastUse(graph.values.size(), kUnset);
  std::map<const AttentionPattern*, std::pair<int, int>> statsLive;  // first and last position
  int pos = 0;
  for (size_t s : schedule)
    for (const FusionGroup& group : groups.at(s)) {
      for (ir::ValueId v : group.extraReads) lastUse[static_cast<size_t>(v)] = pos;
      if (group.attention) statsLive.try_emplace(group.attention.get(), pos, pos).first->second.second = pos;
      for (ir::NodeId n : group.nodes) {
        const ir::Node& node = graph.node(n);
        for (ir::ValueId v : node.inputs) {
          // (a value an earlier member of the group produced is already marked)
          if (graph.value(v).kind == ValueKind::Intermediate && producedAt[static_cast<size_t>(v)] == kUnset)
            return makeError("schedule runs node '" + node.name + "' before '" + graph.value(v).name +
                             "' is computed");
          lastUse[static_cast<size_t>(v)] = pos;
        }
        for (ir::ValueId v : node.outputs)
          if (producedAt[static_cast<size_t>(v)] == kUnset) producedAt[static_cast<size_t>(v)] = pos;
      }
      ++pos;
    }
  for (ir::ValueId v : graph.outputs) lastUse.at(static_cast<size_t>(v)) = pos;
  for (const ir::StateUpdate& u : graph.updates) lastUse[static_cast<size_t>(u.newValue)] = pos;

  ArenaPlan out;
  out.inTile.assign(graph.values.size(), false);
  out.unscheduled.assign(graph.values.size(), false);
  for (const auto& sectionGroups : groups)
    for (const FusionGroup& group : sectionGroups)
      for (ir::ValueId v : group.inTile) out.inTile[static_cast<size_t>(v)] = true;
  std::vector<MemoryPlanner::Buffer> buffers;
  for (const ir::Value& v : graph.values) {
    const size_t i = static_cast<size_t>(v.id);
    if (v.kind != ValueKind::Intermediate || out.inTile[i]) continue;
    if (producedAt[i] == kUnset) {
      out.unscheduled[i] = true;
      continue;
    }
    buffers.push_back({v.type.byteSize(), producedAt[i], std::max(producedAt[i], lastUse[i])});
    out.planned.push_back(v.id);
  }
  for (const auto& [pattern, live] : statsLive) buffers.push_back({pattern->statsBytes(), live.first, live.second});
  MemoryPlanner::Result layout = MemoryPlanner::plan(buffers);
  size_t k = out.planned.size();
  for (const auto& entry : statsLive) out.statsOffsets[entry.first] = layout.offsets[k++];
  layout.offsets.resize(out.planned.size());
  out.offsets = std::move(layout.offsets);
  out.arenaBytes = layout.arenaBytes;
  return out;
}

Expected<HostMemory> estimateHostMemory(const ir::Graph& graph, const partition::Plan& plan, bool fuse) {
  std::map<int, size_t> indexOfId;
  for (size_t s = 0; s < plan.sections.size(); ++s) indexOfId.emplace(plan.sections[s].id, s);
  std::vector<size_t> schedule;
  for (int id : plan.schedule) {
    auto it = indexOfId.find(id);
    if (it == indexOfId.end()) return makeError("plan: schedule names unknown section " + std::to_string(id));
    schedule.push_back(it->second);
  }
  const auto users = graph.computeUsers();
  std::vector<bool> leavesStep(graph.values.size(), false);
  for (ir::ValueId v : graph.outputs) leavesStep[static_cast<size_t>(v)] = true;
  for (const ir::StateUpdate& u : graph.updates) leavesStep[static_cast<size_t>(u.newValue)] = true;
  const std::vector<std::vector<FusionGroup>> groups = planStepFusion(graph, plan, users, leavesStep, fuse);
  auto arena = planArena(graph, schedule, groups);
  if (!arena) return arena.error();
  HostMemory m;
  m.arenaBytes = arena->arenaBytes;
  for (const ir::Value& v : graph.values)
    if (v.kind != ValueKind::Intermediate) m.persistentBytes += v.type.byteSize();
  return m;
}

}  // namespace dfc::runtime
