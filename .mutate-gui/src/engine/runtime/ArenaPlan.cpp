#include "runtime/ArenaPlan.h"

#include <algorithm>
#include <map>

#include "runtime/MemoryPlanner.h"
#include "runtime/StepFusion.h"

namespace dfc::runtime {

using ir::ValueKind;

namespace {

constexpr size_t kNotAView = SIZE_MAX;

// The byte offset at which a reshape's or slice's output lies in its input
// when it is one contiguous range of it at an aligned offset (a reshape: 0; a
// slice of whole leading rows: start x row bytes), else kNotAView.
size_t viewOffset(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return kNotAView;
  const ir::TensorType &in = graph.value(node.inputs[0]).type, &out = graph.value(node.outputs[0]).type;
  // A view must lie inside its owner's bytes, whatever a (hostile) graph's attributes say.
  if (in.dtype != out.dtype) return kNotAView;
  if (node.op == ir::OpKind::Reshape) return in.byteSize() == out.byteSize() ? 0 : kNotAView;
  if (node.op != ir::OpKind::Slice) return kNotAView;
  const int64_t axis = node.intAttr("axis", -1), start = node.intAttr("start", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(in.shape.size()) || start < 0) return kNotAView;
  for (int64_t a = 0; a < axis; ++a)
    if (in.shape[static_cast<size_t>(a)] != 1) return kNotAView;  // rows of several outer blocks: not contiguous
  int64_t inner = 1;
  for (size_t a = static_cast<size_t>(axis) + 1; a < in.shape.size(); ++a) inner *= in.shape[a];
  if (start > in.shape[static_cast<size_t>(axis)]) return kNotAView;
  const size_t offset = static_cast<size_t>(start * inner) * ir::dtypeSize(in.dtype);
  if (offset + out.byteSize() > in.byteSize()) return kNotAView;
  return offset % MemoryPlanner::kAlignment == 0 ? offset : kNotAView;
}

constexpr int kUnset = -1;

// When each value is made and last read, as positions in the run's order of
// fusion groups; an attention pattern's statistics live from its first to its
// last group.
struct Lifetimes {
  std::vector<int> producedAt, lastUse;                              // by value id; kUnset: never
  std::map<const AttentionPattern*, std::pair<int, int>> statsLive;  // first and last position
};

Expected<Lifetimes> valueLifetimes(const ir::Graph& graph, const std::vector<size_t>& schedule,
                                   const std::vector<std::vector<FusionGroup>>& groups) {
  Lifetimes l{std::vector<int>(graph.values.size(), kUnset), std::vector<int>(graph.values.size(), kUnset), {}};
  int pos = 0;
  for (size_t s : schedule)
    for (const FusionGroup& group : groups.at(s)) {
      for (ir::ValueId v : group.extraReads) l.lastUse[static_cast<size_t>(v)] = pos;
      if (group.attention) l.statsLive.try_emplace(group.attention.get(), pos, pos).first->second.second = pos;
      for (ir::NodeId n : group.nodes) {
        const ir::Node& node = graph.node(n);
        for (ir::ValueId v : node.inputs) {
          // (a value an earlier member of the group produced is already marked)
          if (graph.value(v).kind == ValueKind::Intermediate && l.producedAt[static_cast<size_t>(v)] == kUnset)
            return makeError("schedule runs node '" + node.name + "' before '" + graph.value(v).name +
                             "' is computed");
          l.lastUse[static_cast<size_t>(v)] = pos;
        }
        for (ir::ValueId v : node.outputs)
          if (l.producedAt[static_cast<size_t>(v)] == kUnset) l.producedAt[static_cast<size_t>(v)] = pos;
      }
      ++pos;
    }
  for (ir::ValueId v : graph.outputs) l.lastUse.at(static_cast<size_t>(v)) = pos;
  for (const ir::StateUpdate& u : graph.updates) l.lastUse[static_cast<size_t>(u.newValue)] = pos;
  return l;
}

// Views: a reshape or contiguous slice run alone whose input was computed in
// the same section shares its input's bytes (the chip folds such an op into
// its consumers' addressing; -o0's one-op sections never do). Nothing else
// writes either value, so sharing is safe while the longer life is kept.
// Fills out.viewOf and each view's byte offset in its input.
template <typename Planned>
void findViews(const ir::Graph& graph, const std::vector<std::vector<FusionGroup>>& groups, const Planned& planned,
               ArenaPlan& out, std::vector<size_t>& viewAt) {
  std::vector<size_t> sectionOf(graph.nodes.size(), SIZE_MAX);
  for (size_t s = 0; s < groups.size(); ++s)
    for (const FusionGroup& group : groups[s])
      for (ir::NodeId n : group.nodes) sectionOf[static_cast<size_t>(n)] = s;
  for (size_t s = 0; s < groups.size(); ++s)
    for (const FusionGroup& group : groups[s]) {
      if (group.kind != FusionKind::Single || group.nodes.size() != 1) continue;
      const ir::Node& node = graph.node(group.nodes[0]);
      const size_t offset = viewOffset(graph, node);
      if (offset == kNotAView || !planned(node.inputs[0]) || !planned(node.outputs[0])) continue;
      const ir::NodeId producer = graph.value(node.inputs[0]).producer;
      if (producer == ir::kNoNode || sectionOf[static_cast<size_t>(producer)] != s) continue;
      out.viewOf[static_cast<size_t>(node.outputs[0])] = node.inputs[0];
      viewAt[static_cast<size_t>(node.outputs[0])] = offset;
    }
}

// A view's owner: the first value up its chain of views; the offset adds up.
ir::ValueId viewOwner(const ArenaPlan& out, const std::vector<size_t>& viewAt, ir::ValueId v, size_t& offset) {
  offset = 0;
  while (out.viewOf[static_cast<size_t>(v)] != ir::kNoValue) {
    offset += viewAt[static_cast<size_t>(v)];
    v = out.viewOf[static_cast<size_t>(v)];
  }
  return v;
}

// One buffer per planned value that is not a view, then the views stretching
// their owners' lives, then the attention statistics; laid out by liveness.
void layoutArena(const ir::Graph& graph, const Lifetimes& l, const std::vector<size_t>& viewAt, ArenaPlan& out) {
  std::vector<MemoryPlanner::Buffer> buffers;
  std::vector<size_t> bufferOf(graph.values.size(), SIZE_MAX);
  for (const ir::Value& v : graph.values) {
    const size_t i = static_cast<size_t>(v.id);
    if (v.kind != ValueKind::Intermediate || out.inTile[i]) continue;
    if (l.producedAt[i] == kUnset) {
      out.unscheduled[i] = true;
      continue;
    }
    if (out.viewOf[i] != ir::kNoValue) continue;
    bufferOf[i] = buffers.size();
    buffers.push_back({v.type.byteSize(), l.producedAt[i], std::max(l.producedAt[i], l.lastUse[i])});
    out.planned.push_back(v.id);
  }
  std::vector<std::pair<ir::ValueId, size_t>> viewValues;  // with their byte offset in the owner
  for (const ir::Value& v : graph.values) {
    const size_t i = static_cast<size_t>(v.id);
    if (out.viewOf[i] == ir::kNoValue) continue;
    size_t offset = 0;
    MemoryPlanner::Buffer& b = buffers[bufferOf[static_cast<size_t>(viewOwner(out, viewAt, v.id, offset))]];
    b.last = std::max({b.last, l.producedAt[i], l.lastUse[i]});  // the owner's bytes live as long as any view of them
    viewValues.emplace_back(v.id, offset);
  }
  for (const auto& [pattern, live] : l.statsLive) buffers.push_back({pattern->statsBytes(), live.first, live.second});
  MemoryPlanner::Result layout = MemoryPlanner::plan(buffers);
  size_t k = out.planned.size();
  for (const auto& entry : l.statsLive) out.statsOffsets[entry.first] = layout.offsets[k++];
  layout.offsets.resize(out.planned.size());
  out.offsets = std::move(layout.offsets);
  for (const auto& [v, offset] : viewValues) {
    size_t ignored = 0;
    const size_t at =
        bufferOf[static_cast<size_t>(viewOwner(out, viewAt, v, ignored))];  // buffers and planned share indices
    out.planned.push_back(v);
    out.offsets.push_back(out.offsets[at] + offset);
  }
  out.arenaBytes = layout.arenaBytes;
}

}  // namespace

Expected<ArenaPlan> planArena(const ir::Graph& graph, const std::vector<size_t>& schedule,
                              const std::vector<std::vector<FusionGroup>>& groups, bool views) {
  auto lifetimes = valueLifetimes(graph, schedule, groups);
  if (!lifetimes) return lifetimes.error();
  const Lifetimes& l = *lifetimes;
  ArenaPlan out;
  out.inTile.assign(graph.values.size(), false);
  out.unscheduled.assign(graph.values.size(), false);
  for (const auto& sectionGroups : groups)
    for (const FusionGroup& group : sectionGroups)
      for (ir::ValueId v : group.inTile) out.inTile[static_cast<size_t>(v)] = true;
  auto planned = [&](ir::ValueId v) {
    const size_t i = static_cast<size_t>(v);
    return graph.value(v).kind == ValueKind::Intermediate && !out.inTile[i] && l.producedAt[i] != kUnset;
  };
  out.viewOf.assign(graph.values.size(), ir::kNoValue);
  std::vector<size_t> viewAt(graph.values.size(), 0);
  if (views) findViews(graph, groups, planned, out, viewAt);
  layoutArena(graph, l, viewAt, out);
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
  auto arena = planArena(graph, schedule, groups, fuse);
  if (!arena) return arena.error();
  HostMemory m;
  m.arenaBytes = arena->arenaBytes;
  for (const ir::Value& v : graph.values)
    if (v.kind != ValueKind::Intermediate) m.persistentBytes += v.type.byteSize();
  return m;
}

}  // namespace dfc::runtime
