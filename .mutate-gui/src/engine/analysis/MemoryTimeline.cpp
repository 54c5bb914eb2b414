#include "analysis/MemoryTimeline.h"

#include <algorithm>
#include <climits>
#include <set>

#include "estimate/MemoryTiers.h"
#include "ir/KvCache.h"

namespace dfc::analysis {
namespace {

bool makesGradients(ir::NodeRole r) {
  return r == ir::NodeRole::Backward || r == ir::NodeRole::Reduce || r == ir::NodeRole::Accumulate;
}

// Per node: the call (index into the schedule) of its section's first call; -1 when never called.
std::vector<int> callOfNode(const ir::Graph& g, const partition::Plan& plan) {
  std::vector<int> callOfSection(plan.sections.size(), -1);
  for (size_t c = plan.schedule.size(); c-- > 0;)
    callOfSection[static_cast<size_t>(plan.schedule[c])] = static_cast<int>(c);
  std::vector<int> out(g.nodes.size(), -1);
  for (const partition::Section& s : plan.sections)
    for (ir::NodeId n : s.nodes) out[static_cast<size_t>(n)] = callOfSection[static_cast<size_t>(s.id)];
  return out;
}

// What the timeline needs per value: the calls reading it, whether it outlives the step.
struct ValueUse {
  int firstRead = INT_MAX;
  int lastRead = -1;
  bool escapes = false;    // a graph output or a step's new state
  bool rewritten = false;  // a state-update target
};

std::vector<ValueUse> valueUses(const ir::Graph& g, const std::vector<int>& callOf) {
  std::vector<ValueUse> use(g.values.size());
  for (const ir::Node& n : g.nodes) {
    const int c = callOf[static_cast<size_t>(n.id)];
    if (c < 0) continue;
    for (ir::ValueId in : n.inputs) {
      ValueUse& u = use[static_cast<size_t>(in)];
      u.firstRead = std::min(u.firstRead, c);
      u.lastRead = std::max(u.lastRead, c);
    }
  }
  for (ir::ValueId o : g.outputs) use[static_cast<size_t>(o)].escapes = true;
  for (const ir::StateUpdate& s : g.updates) {
    use[static_cast<size_t>(s.newValue)].escapes = true;
    use[static_cast<size_t>(s.target)].rewritten = true;
  }
  return use;
}

MemTier offChip(estimate::Tier t) { return t == estimate::Tier::Hbm ? MemTier::Hbm : MemTier::Ddr; }

// Weights, optimizer state and KV caches: the whole step, HBM first come (by first read) first served.
void addPersistent(const ir::Graph& g, const arch::ArchSpec& arch, const std::vector<ValueUse>& use, int calls,
                   std::vector<LiveTensor>& out) {
  std::vector<ir::ValueId> order;
  for (const ir::Value& v : g.values)
    if (v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const) order.push_back(v.id);
  std::stable_sort(order.begin(), order.end(), [&](ir::ValueId a, ir::ValueId b) {
    return use[static_cast<size_t>(a)].firstRead < use[static_cast<size_t>(b)].firstRead;
  });
  estimate::MemoryTiers tiers(arch);
  const double chips = std::max(1, arch.chips);
  for (ir::ValueId id : order) {
    const ir::Value& v = g.value(id);
    const auto bytes = static_cast<int64_t>(v.type.byteSize());
    auto placed = tiers.place(v.name, static_cast<double>(bytes) / chips);
    const MemKind kind = ir::isKvCache(g, id) ? MemKind::KvCache
                         : v.kind == ir::ValueKind::Const && use[static_cast<size_t>(id)].rewritten
                             ? MemKind::OptimizerState
                             : MemKind::Weights;
    out.push_back({id, kind, placed ? offChip(*placed) : MemTier::Ddr, bytes, 0, std::max(0, calls - 1)});
  }
}

// Inputs and intermediates: from the call making them to the last reading them.
void addTransient(const ir::Graph& g, const std::vector<int>& callOf, const std::vector<ValueUse>& use,
                  MemTier activationTier, int calls, std::vector<LiveTensor>& out) {
  for (const ir::Value& v : g.values) {
    if (v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const) continue;
    const ValueUse& u = use[static_cast<size_t>(v.id)];
    const auto bytes = static_cast<int64_t>(v.type.byteSize());
    if (v.kind == ir::ValueKind::Input) {
      out.push_back(
          {v.id, MemKind::Activations, activationTier, bytes, 0, u.escapes ? calls - 1 : std::max(0, u.lastRead)});
      continue;
    }
    const int made = v.producer == ir::kNoNode ? -1 : callOf[static_cast<size_t>(v.producer)];
    if (made < 0) continue;
    const ir::NodeRole role = g.node(v.producer).role;
    const MemKind kind = makesGradients(role)              ? MemKind::Gradients
                         : role == ir::NodeRole::Optimizer ? MemKind::OptimizerState
                                                           : MemKind::Activations;
    const int last = u.escapes ? calls - 1 : std::max(made, u.lastRead);
    const bool onChip = !u.escapes && last == made && (u.lastRead < 0 || u.firstRead == made);
    out.push_back({v.id, kind, onChip ? MemTier::Sram : activationTier, bytes, made, last});
    out.push_back({v.id, kind, MemTier::Host, bytes, made, last});
  }
}

// Sums of the tensors live at each call, by a running difference per (tier, kind).
std::vector<MemoryPoint> sumPoints(const std::vector<LiveTensor>& tensors, const partition::Plan& plan,
                                   double bytesPerPmu) {
  const size_t calls = plan.schedule.size();
  std::vector<MemoryPoint> points(calls);
  std::vector<std::array<std::array<int64_t, kMemKinds>, kMemTiers>> diff(calls + 1);
  for (auto& d : diff)
    for (auto& row : d) row.fill(0);
  for (const LiveTensor& t : tensors) {
    diff[static_cast<size_t>(t.first)][static_cast<size_t>(t.tier)][static_cast<size_t>(t.kind)] += t.bytes;
    diff[static_cast<size_t>(t.last) + 1][static_cast<size_t>(t.tier)][static_cast<size_t>(t.kind)] -= t.bytes;
  }
  for (size_t c = 0; c < calls; ++c) {
    points[c].call = static_cast<int>(c);
    points[c].section = plan.schedule[c];
    points[c].pmus = plan.sections.at(static_cast<size_t>(plan.schedule[c])).estimate.pmus;
    points[c].pmuBytes = static_cast<int64_t>(points[c].pmus * bytesPerPmu);
    for (size_t t = 0; t < kMemTiers; ++t)
      for (size_t k = 0; k < kMemKinds; ++k)
        points[c].bytes[t][k] = (c ? points[c - 1].bytes[t][k] : 0) + diff[c][t][k];
  }
  return points;
}

TierPeak peakOf(MemTier tier, const std::vector<MemoryPoint>& points, const std::vector<LiveTensor>& tensors) {
  TierPeak p;
  for (const MemoryPoint& pt : points)
    if (pt.tierTotal(tier) > p.bytes) {
      p.bytes = pt.tierTotal(tier);
      p.call = pt.call;
    }
  if (p.call < 0) return p;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].tier == tier && tensors[i].first <= p.call && p.call <= tensors[i].last) p.tensors.push_back(i);
  std::stable_sort(p.tensors.begin(), p.tensors.end(),
                   [&](size_t a, size_t b) { return tensors[a].bytes > tensors[b].bytes; });
  return p;
}

}  // namespace

const char* memTierName(MemTier t) {
  static const char* const kNames[] = {"sram", "hbm", "ddr", "host"};
  return kNames[static_cast<int>(t)];
}

const char* memKindName(MemKind k) {
  static const char* const kNames[] = {"weights", "activations", "gradients", "optimizer_state", "kv_cache"};
  return kNames[static_cast<int>(k)];
}

int64_t MemoryPoint::tierTotal(MemTier t) const {
  int64_t sum = 0;
  for (int64_t b : bytes[static_cast<size_t>(t)]) sum += b;
  return sum;
}

MemoryTimeline memoryTimeline(const ir::Graph& g, const partition::Plan& plan, const arch::ArchSpec& arch) {
  MemoryTimeline m;
  const int calls = static_cast<int>(plan.schedule.size());
  if (calls == 0) return m;
  const std::vector<int> callOf = callOfNode(g, plan);
  const std::vector<ValueUse> use = valueUses(g, callOf);
  addPersistent(g, arch, use, calls, m.tensors);
  addTransient(g, callOf, use, arch.hbmGbps > 0 ? MemTier::Hbm : MemTier::Ddr, calls, m.tensors);
  m.points = sumPoints(m.tensors, plan, arch.pmuBytes);
  const double chips = std::max(1, arch.chips);
  m.capacity = {arch.sramBytesPerChip() * chips, arch.hbmGbps > 0 ? arch.hbmBytes * chips : 0, arch.ddrBytes * chips,
                0};
  for (const MemoryPoint& p : m.points)
    if (p.pmuBytes > 0 && (m.pmuPeakCall < 0 || p.pmuBytes > m.points[static_cast<size_t>(m.pmuPeakCall)].pmuBytes))
      m.pmuPeakCall = p.call;
  for (int t = 0; t < kMemTiers; ++t)
    m.peaks[static_cast<size_t>(t)] = peakOf(static_cast<MemTier>(t), m.points, m.tensors);
  return m;
}

}  // namespace dfc::analysis
