#include "runtime/Executor.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <string_view>

#include "ir/KvCache.h"
#include "runtime/ArenaPlan.h"
#include "runtime/BlockedLayouts.h"
#include "runtime/FusedAttention.h"
#include "runtime/FusedChain.h"
#include "runtime/Kernels.h"
#include "runtime/MemoryPlanner.h"
#include "runtime/OneDnnJoins.h"
#include "runtime/SideBySide.h"
#include "runtime/StepFusion.h"
#include "support/LibraryClock.h"
#include "support/SizeBudget.h"

namespace dfc::runtime {
namespace {

using ir::ValueKind;

struct SectionRun {
  const partition::Section* section = nullptr;
  std::vector<KernelPtr> kernels;  // one per node, in section order
  std::vector<size_t> labels;      // parallel to kernels: index into Impl::profile
  double bytes = 0;
};

struct Update {
  ir::Tensor* target = nullptr;
  const ir::Tensor* source = nullptr;
  ir::Tensor staging;  // only when the source is itself persistent (it may be another target)
  bool gradientSum = false;  // gradient accumulation: written back between optimizer steps, zeroed on one
};

}  // namespace

struct Executor::Impl {
  explicit Impl(const ExecutorOptions& o)
      : pool(o.threads, o.poolSpin),
        ctx(pool, o.communicator),
        fuse(o.fuse),
        fuseAttention(o.fuseAttention),
        profiling(o.profileKernels),
        blockedLayouts(o.blockedLayouts) {
    ctx.setConvAlgo(o.convAlgo);
    ctx.setSplitWidth(o.splitWidth);
  }

  support::ThreadPool pool;
  ExecContext ctx;
  ir::Graph graph;
  partition::Plan plan;
  std::vector<ir::Tensor> storage;  // by ValueId; allocated once in create()
  std::shared_ptr<std::byte> arena;
  size_t arenaBytes = 0;
  std::vector<SectionRun> sections;  // parallel to plan.sections
  std::vector<size_t> schedule;      // indices into sections
  std::vector<Update> updates;
  int accumulationSteps = 1;
  int updatesInPlace = 0;  // state updates whose new value shares its target's bytes  // gradient accumulation: the optimizer runs every this many training steps
  int64_t trainingSteps = 0;
  bool warmed[2] = {false, false};  // a training step, a forward-only step has run
  bool fuse;
  bool fuseAttention;
  std::vector<std::vector<FusionGroup>> groups;  // per section: how its nodes run
  FusionStats fusion;
  std::vector<std::vector<ir::NodeId>> users;
  std::vector<bool> leavesStep;  // graph outputs and state-update sources
  std::map<const AttentionPattern*, ir::Tensor> attentionStats;  // fused attention row statistics, in the arena
  bool profiling;
  std::atomic<int64_t> libraryClock{0};  // ns in library GEMM/conv calls (support/LibraryClock.h)
  std::vector<KernelTime> profile;  // one per label, in order of first use
  std::map<std::string, size_t> labelIndex;
  std::map<const Kernel*, ConvTensors> convEpilogueTensors;  // what each conv epilogue kernel writes and adds
  bool blockedLayouts;

  size_t labelFor(const std::string& label, std::string_view family);
  size_t labelFor(const ir::Node& node);
  Status runSection(const SectionRun& run);

  Status validate();
  void planFusion();
  void applyUpdates(bool optimizerStep);
  void applyUpdatesTimed(bool optimizerStep);
  Status allocate();
  void updateInPlace();
  Status prepareKernels();
  Expected<KernelPtr> prepareNode(const ir::Node& node);
  Status prepareGroup(const FusionGroup& group, SectionRun& run);
  Status prepareConvEpilogue(const FusionGroup& group, std::vector<KernelPtr>& members, SectionRun& run);
  void planBlocked();
};

void Executor::Impl::planFusion() {
  users = graph.computeUsers();
  leavesStep.assign(graph.values.size(), false);
  for (ir::ValueId v : graph.outputs) leavesStep[static_cast<size_t>(v)] = true;
  for (const ir::StateUpdate& u : graph.updates) leavesStep[static_cast<size_t>(u.newValue)] = true;
  groups = planStepFusion(graph, plan, users, leavesStep, fuse, fuseAttention);
  for (const auto& sectionGroups : groups) countFusion(sectionGroups, fusion);
}

Status Executor::Impl::validate() {
  const size_t numNodes = graph.nodes.size(), numValues = graph.values.size();
  std::vector<int> seen(numNodes, 0);
  std::map<int, size_t> indexOfId;
  for (size_t s = 0; s < plan.sections.size(); ++s) {
    const auto& sec = plan.sections[s];
    if (!indexOfId.emplace(sec.id, s).second)
      return makeError("plan: section id " + std::to_string(sec.id) + " appears twice");
    for (ir::NodeId n : sec.nodes) {
      if (n < 0 || static_cast<size_t>(n) >= numNodes)
        return makeError("plan: section '" + sec.name + "' names unknown node " + std::to_string(n));
      if (++seen[static_cast<size_t>(n)] > 1)
        return makeError("plan: node '" + graph.node(n).name + "' is in more than one section");
    }
  }
  for (size_t n = 0; n < numNodes; ++n)
    if (seen[n] == 0) return makeError("plan: node '" + graph.nodes[n].name + "' is in no section");
  for (int id : plan.schedule) {
    auto it = indexOfId.find(id);
    if (it == indexOfId.end()) return makeError("plan: schedule names unknown section " + std::to_string(id));
    schedule.push_back(it->second);
  }
  for (const ir::Node& node : graph.nodes)
    for (const auto* ids : {&node.inputs, &node.outputs})
      for (ir::ValueId v : *ids)
        if (v < 0 || static_cast<size_t>(v) >= numValues)
          return makeError("node '" + node.name + "' refers to unknown value " + std::to_string(v));
  for (const ir::StateUpdate& u : graph.updates) {
    if (u.target < 0 || static_cast<size_t>(u.target) >= numValues || u.newValue < 0 ||
        static_cast<size_t>(u.newValue) >= numValues)
      return makeError("state update refers to an unknown value");
    const ir::Value &t = graph.value(u.target), &nv = graph.value(u.newValue);
    if (t.kind != ValueKind::Param && t.kind != ValueKind::Const)
      return makeError("state update target '" + t.name + "' is not a param or const");
    if (t.type != nv.type)
      return makeError("state update of '" + t.name + "' from '" + nv.name + "': " + t.type.toString() +
                       " vs " + nv.type.toString());
  }
  return {};
}

Status Executor::Impl::allocate() {
  storage.resize(graph.values.size());
  // Persistent values: params and consts from their initializers, inputs zeroed.
  for (const ir::Value& v : graph.values) {
    if (v.kind == ValueKind::Intermediate) continue;
    if (v.kind == ValueKind::Input) {
      storage[static_cast<size_t>(v.id)] = ir::Tensor(v.type);
      continue;
    }
    auto it = graph.initializers.find(v.id);
    if (it == graph.initializers.end()) return makeError("value '" + v.name + "' has no initializer");
    if (it->second.type() != v.type)
      return makeError("initializer of '" + v.name + "' is " + it->second.type().toString() + ", expected " +
                       v.type.toString());
    storage[static_cast<size_t>(v.id)] = it->second.clone();
  }

  auto layout = planArena(graph, schedule, groups, fuse);
  if (!layout) return layout.error();
  for (const ir::Value& v : graph.values) {
    const size_t i = static_cast<size_t>(v.id);
    if (layout->inTile[i]) storage[i] = ir::Tensor::deferred(v.type, {});  // lives in a fused chain's tile: no bytes
    if (layout->unscheduled[i]) storage[i] = ir::Tensor(v.type);           // never computed: a stand-alone zero tensor
  }
  arenaBytes = layout->arenaBytes;
  DFC_TRY(support::checkBudget("the runtime's arena for intermediate values", arenaBytes));  // before allocating it
  if (arenaBytes > 0) {
    auto* p = static_cast<std::byte*>(std::aligned_alloc(MemoryPlanner::kAlignment, arenaBytes));
    if (!p) return internalError("cannot allocate a runtime arena of " + std::to_string(arenaBytes) + " bytes");
    std::memset(p, 0, arenaBytes);
    arena = std::shared_ptr<std::byte>(p, [](std::byte* q) { std::free(q); });
  }
  for (size_t k = 0; k < layout->planned.size(); ++k) {
    const ir::Value& v = graph.value(layout->planned[k]);
    // Aliasing shared_ptr: the view keeps the whole arena alive.
    storage[static_cast<size_t>(v.id)] =
        ir::Tensor(v.type, std::shared_ptr<std::byte>(arena, arena.get() + layout->offsets[k]));
  }
  for (const auto& [pattern, offset] : layout->statsOffsets)
    attentionStats[pattern] = ir::Tensor(ir::TensorType{ir::DType::F32, {pattern->matrices, pattern->queries}},
                                         std::shared_ptr<std::byte>(arena, arena.get() + offset));

  updateInPlace();
  for (const ir::StateUpdate& u : graph.updates) {
    Update up;
    up.target = &storage[static_cast<size_t>(u.target)];
    up.source = &storage[static_cast<size_t>(u.newValue)];
    if (graph.value(u.newValue).kind != ValueKind::Intermediate) up.staging = ir::Tensor(graph.value(u.newValue).type);
    const ir::NodeId producer = graph.value(u.newValue).producer;
    if (producer != ir::kNoNode && graph.node(producer).role == ir::NodeRole::Accumulate) {
      up.gradientSum = true;
      accumulationSteps = std::max<int>(accumulationSteps,
                                        static_cast<int>(graph.node(producer).intAttr("accumulation_steps", 1)));
    }
    updates.push_back(std::move(up));
  }
  return {};
}

// An optimizer update writes the new param (or velocity, or moment) straight
// over the old, as the chip updates weights where they live, when that is
// safe: the old value is read by nothing scheduled after the update, no other
// state update copies from it or from the new value, and no gradient
// accumulation keeps the update from applying every step. The new value then
// shares the target's bytes and the copy after the step goes away.
void Executor::Impl::updateInPlace() {
  std::set<ir::ValueId> copiedFrom;
  std::map<ir::ValueId, int> updatesOf;  // a target updated twice keeps the copies (the last one wins)
  for (const ir::StateUpdate& u : graph.updates) {
    copiedFrom.insert(u.newValue);
    ++updatesOf[u.target];
    const ir::NodeId p = graph.value(u.newValue).producer;
    if (p != ir::kNoNode && graph.node(p).role == ir::NodeRole::Accumulate) return;
  }
  std::vector<int64_t> position(graph.nodes.size(), -1);  // nodes of one fused group run at once
  int64_t at = 0;
  for (size_t s : schedule)
    for (const FusionGroup& group : groups[s]) {
      for (ir::NodeId n : group.nodes) position[static_cast<size_t>(n)] = at;
      ++at;
    }
  const std::set<ir::ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
  for (const ir::StateUpdate& u : graph.updates) {
    const ir::Value& fresh = graph.value(u.newValue);
    if (fresh.kind != ValueKind::Intermediate || fresh.producer == ir::kNoNode) continue;
    const ir::Node& node = graph.node(fresh.producer);
    if (node.op != ir::OpKind::SgdUpdate && node.op != ir::OpKind::MomentumUpdate && node.op != ir::OpKind::AdamUpdate)
      continue;
    // Output k of (param, grad, state..., lr[, step]) -> (param', state'...) is the new value of input k or k + 1.
    const size_t k =
        static_cast<size_t>(std::find(node.outputs.begin(), node.outputs.end(), u.newValue) - node.outputs.begin());
    const size_t in = k == 0 ? 0 : k + 1;
    if (in >= node.inputs.size() || node.inputs[in] != u.target ||
        std::count(node.inputs.begin(), node.inputs.end(), u.target) != 1)
      continue;
    if (copiedFrom.count(u.target) || updatesOf[u.target] != 1 || outputs.count(u.target) ||
        !users[static_cast<size_t>(u.newValue)].empty() || storage[static_cast<size_t>(u.newValue)].bytes() == nullptr)
      continue;
    const int64_t when = position[static_cast<size_t>(fresh.producer)];
    bool readLater = when < 0;
    for (ir::NodeId r : users[static_cast<size_t>(u.target)]) {
      const int64_t rAt = position[static_cast<size_t>(r)];
      readLater = readLater || (r != fresh.producer && (rAt < 0 || rAt >= when));
    }
    if (readLater) continue;
    storage[static_cast<size_t>(u.newValue)] = storage[static_cast<size_t>(u.target)];  // shares the bytes
    ++updatesInPlace;
  }
}

Expected<KernelPtr> Executor::Impl::prepareNode(const ir::Node& node) {
  std::vector<const ir::Tensor*> inputs;
  std::vector<ir::Tensor*> outputs;
  for (ir::ValueId v : node.inputs) inputs.push_back(&storage[static_cast<size_t>(v)]);
  for (ir::ValueId v : node.outputs) outputs.push_back(&storage[static_cast<size_t>(v)]);
  auto kernel = prepareKernel(node, inputs, outputs);
  if (!kernel) return kernel;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const ir::ValueId v = node.inputs[k];
    const ir::ValueKind kind = graph.value(v).kind;
    const bool updated = std::any_of(graph.updates.begin(), graph.updates.end(),
                                     [&](const ir::StateUpdate& u) { return u.target == v; });
    if ((kind == ir::ValueKind::Param || kind == ir::ValueKind::Const) && !updated) (*kernel)->markStableInput(k);
  }
  return kernel;
}

// One kernel for the group; a GEMM or conv that declines its bias epilogue runs
// before its bias_add instead (the liveness plan allows both).
Status Executor::Impl::prepareGroup(const FusionGroup& group, SectionRun& run) {
  if (group.kind == FusionKind::SideBySide) {
    SectionRun parts;
    parts.section = run.section;
    for (const FusionGroup& part : group.parts) DFC_TRY(prepareGroup(part, parts));
    if (parts.kernels.size() != group.parts.size()) {  // a GEMM declined its epilogue: the parts run in turn
      for (size_t k = 0; k < parts.kernels.size(); ++k) {
        run.kernels.push_back(std::move(parts.kernels[k]));
        run.labels.push_back(parts.labels[k]);
      }
      return {};
    }
    run.kernels.push_back(std::make_unique<SideBySideKernel>(std::move(parts.kernels)));
    run.labels.push_back(labelFor("matmuls side by side (fused)", "linalg"));
    return {};
  }
  if (group.attention) {  // one kernel for the whole chain; its members' scores have no storage to bind
    auto kernel = makeAttentionKernel(graph, group, storage, attentionStats[group.attention.get()]);
    if (!kernel) return kernel.error();
    run.kernels.push_back(std::move(*kernel));
    run.labels.push_back(labelFor(group.kind == FusionKind::AttentionForward ? "attention forward (fused)"
                                                                             : "attention backward (fused)",
                                  "transformer"));
    return {};
  }
  std::vector<KernelPtr> members;
  for (ir::NodeId n : group.nodes) {
    auto kernel = prepareNode(graph.node(n));
    if (!kernel) return kernel.error();
    members.push_back(std::move(*kernel));
  }
  if (group.kind == FusionKind::BiasEpilogue) {
    const ir::Node& bias = graph.node(group.nodes[1]);
    if (members[0]->takeBiasEpilogue(storage[static_cast<size_t>(bias.inputs[1])],
                                     storage[static_cast<size_t>(bias.outputs[0])])) {
      const ir::Node& gemm = graph.node(group.nodes[0]);
      if (gemm.op == ir::OpKind::Conv2d || gemm.op == ir::OpKind::Conv)  // it writes the bias_add's output
        convEpilogueTensors[members[0].get()] = {members[0].get(), gemm.inputs[0], ir::kNoValue, bias.outputs[0]};
      run.kernels.push_back(std::move(members[0]));
      run.labels.push_back(labelFor(std::string(ir::opName(gemm.op)) + " + bias_add",
                                    ir::familyName(ir::opInfo(gemm.op).family)));
      return {};
    }
  }
  if (group.kind == FusionKind::ConvEpilogue) return prepareConvEpilogue(group, members, run);
  if (group.kind == FusionKind::Chain) {
    std::vector<FusedChainKernel::Member> plan;
    std::map<ir::ValueId, int> slotOf;
    for (ir::ValueId v : group.inTile) slotOf.emplace(v, static_cast<int>(slotOf.size()));
    auto operand = [&](ir::ValueId v) {
      auto it = slotOf.find(v);
      return FusedChainKernel::Operand{&storage[static_cast<size_t>(v)], it == slotOf.end() ? -1 : it->second};
    };
    bool tiled = true;
    for (size_t i = 0; i < members.size(); ++i) {
      const auto* tile = dynamic_cast<const TileKernel*>(members[i].get());
      const ir::Node& node = graph.node(group.nodes[i]);
      tiled = tiled && tile;
      FusedChainKernel::Member m{tile, {}, operand(node.outputs[0])};
      for (ir::ValueId v : node.inputs) m.inputs.push_back(operand(v));
      plan.push_back(std::move(m));
    }
    // The planner chains only ops whose kernels tile, and in-tile values have no memory to fall back on.
    if (!tiled) return internalError("node '" + graph.node(group.nodes[0]).name + "' was fused but cannot run on tiles");
    const int64_t elements = graph.value(graph.node(group.nodes[0]).outputs[0]).type.numElements();
    run.kernels.push_back(std::make_unique<FusedChainKernel>(std::move(members), std::move(plan), elements));
    run.labels.push_back(labelFor("elementwise chain (fused)", "elementwise"));
    return {};
  }
  for (size_t i = 0; i < members.size(); ++i) {
    run.kernels.push_back(std::move(members[i]));
    run.labels.push_back(labelFor(graph.node(group.nodes[i])));
  }
  return {};
}

// A conv (+ bias_add) (+ residual add) + activation: the conv takes the
// members in order while it can; the first it declines and those after it
// run as kernels of their own.
Status Executor::Impl::prepareConvEpilogue(const FusionGroup& group, std::vector<KernelPtr>& members, SectionRun& run) {
  const ir::Node& conv = graph.node(group.nodes[0]);
  const ir::ValueId convOut = conv.outputs[0];
  ir::ValueId result = convOut;  // what the conv writes so far
  ir::ValueId skip = ir::kNoValue;  // the residual it adds, once taken
  std::string label(ir::opName(conv.op));
  size_t taken = 1;
  for (; taken < members.size(); ++taken) {
    const ir::Node& node = graph.node(group.nodes[taken]);
    ir::Tensor& out = storage[static_cast<size_t>(node.outputs[0])];
    bool ok = false;
    if (node.op == ir::OpKind::BiasAdd) {
      ok = members[0]->takeBiasEpilogue(storage[static_cast<size_t>(node.inputs[1])], out);
    } else if (node.op == ir::OpKind::Add) {
      const ir::ValueId other = node.inputs[0] == result ? node.inputs[1] : node.inputs[0];
      ok = members[0]->takeResidualEpilogue(storage[static_cast<size_t>(other)], out);
      if (ok) skip = other;
    } else {
      ok = members[0]->takeActivationEpilogue(node, out);
    }
    if (!ok) break;
    result = node.outputs[0];
    label += " + " + (node.op == ir::OpKind::Unary ? std::get<std::string>(node.attrs.at("fn"))
                                                   : std::string(ir::opName(node.op)));
  }
  convEpilogueTensors[members[0].get()] = {members[0].get(), conv.inputs[0], skip, result};
  run.kernels.push_back(std::move(members[0]));
  run.labels.push_back(labelFor(label, ir::familyName(ir::opInfo(conv.op).family)));
  for (size_t i = taken; i < members.size(); ++i) {
    run.kernels.push_back(std::move(members[i]));
    run.labels.push_back(labelFor(graph.node(group.nodes[i])));
  }
  return {};
}

Status Executor::Impl::prepareKernels() {
  sections.resize(plan.sections.size());
  for (size_t s = 0; s < plan.sections.size(); ++s) {
    SectionRun& run = sections[s];
    run.section = &plan.sections[s];
    std::vector<bool> inside(graph.nodes.size(), false);
    for (ir::NodeId n : run.section->nodes) inside[static_cast<size_t>(n)] = true;
    std::vector<bool> counted(graph.values.size(), false);
    auto count = [&](ir::ValueId v) {
      if (counted[static_cast<size_t>(v)]) return;
      counted[static_cast<size_t>(v)] = true;
      run.bytes += ir::boundaryBytes(graph, v);  // a KV cache write: the rows written, as the cost model counts
    };
    for (ir::NodeId n : run.section->nodes) {
      const ir::Node& node = graph.node(n);
      for (ir::ValueId v : node.inputs) {
        ir::NodeId producer = graph.value(v).producer;
        if (producer == ir::kNoNode || !inside[static_cast<size_t>(producer)]) count(v);  // crosses in
      }
      for (ir::ValueId v : node.outputs) {
        bool external = leavesStep[static_cast<size_t>(v)];
        for (ir::NodeId u : users[static_cast<size_t>(v)]) external = external || !inside[static_cast<size_t>(u)];
        if (external) count(v);  // crosses out
      }
    }
    for (const FusionGroup& group : groups[s])
      if (Status st = prepareGroup(group, run); !st) return st.error().withContext("section '" + run.section->name + "'");
  }
  return {};
}

// Every forward convolution and max pool kernel, with the values it reads and
// writes, to the blocked-layout plan (BlockedLayouts.h).
void Executor::Impl::planBlocked() {
  if (!blockedLayouts) return;
  const std::set<ir::NodeId> joins = planOneDnnJoins(graph, groups, users, leavesStep, ctx.convAlgo());
  fusion.oneDnnJoins = static_cast<int>(joins.size());
  for (SectionRun& run : sections)
    for (KernelPtr& k : run.kernels)
      if (joins.count(k->node().id)) k->joinOneDnn();
  std::vector<ConvTensors> convs;
  for (SectionRun& run : sections)
    for (KernelPtr& k : run.kernels) {
      const ir::Node& node = k->node();
      if (node.op == ir::OpKind::MaxPool2d)
        convs.push_back({k.get(), node.inputs[0], ir::kNoValue, node.outputs[0], true});
      if (node.op != ir::OpKind::Conv2d && node.op != ir::OpKind::Conv) continue;
      auto it = convEpilogueTensors.find(k.get());
      convs.push_back(it != convEpilogueTensors.end()
                          ? it->second
                          : ConvTensors{k.get(), node.inputs[0], ir::kNoValue, node.outputs[0]});
    }
  fusion.blockedTensors =
      planBlockedLayouts(convs, users, leavesStep, ctx.convAlgo(), ctx.splitWidth(), &fusion.blocked16Tensors);
}

size_t Executor::Impl::labelFor(const std::string& label, std::string_view family) {
  auto [it, added] = labelIndex.try_emplace(label, profile.size());
  if (added) profile.push_back({label, std::string(family), 0, 0});
  return it->second;
}

size_t Executor::Impl::labelFor(const ir::Node& node) {
  return labelFor(std::string(ir::opName(node.op)), ir::familyName(ir::opInfo(node.op).family));
}

Status Executor::Impl::runSection(const SectionRun& run) {
  for (size_t k = 0; k < run.kernels.size(); ++k) {
    const auto start = profiling ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const int64_t libraryBefore = profiling ? libraryClock.load(std::memory_order_relaxed) : 0;
    const support::LibraryClockScope clock(profiling ? &libraryClock : nullptr);
    Status st = run.kernels[k]->run(ctx);
    if (!st) return st.error().withContext("section '" + run.section->name + "'");
    if (!profiling) continue;
    KernelTime& t = profile[run.labels[k]];
    ++t.calls;
    t.totalUs += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    t.libraryUs += static_cast<double>(libraryClock.load(std::memory_order_relaxed) - libraryBefore) / 1e3;
  }
  return {};
}

void Executor::Impl::applyUpdatesTimed(bool optimizerStep) {
  if (!profiling || updates.empty()) return applyUpdates(optimizerStep);
  const auto start = std::chrono::steady_clock::now();
  applyUpdates(optimizerStep);
  KernelTime& t = profile[labelFor("state updates", "runtime")];
  ++t.calls;
  t.totalUs += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

Executor::Executor(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;
Executor& Executor::operator=(Executor&&) noexcept = default;

Expected<Executor> Executor::create(const ir::Graph& graph, const partition::Plan& plan, const ExecutorOptions& options) {
  auto impl = std::make_unique<Impl>(options);
  impl->graph = graph;
  impl->plan = plan;
  DFC_TRY(impl->validate());
  impl->planFusion();
  DFC_TRY(impl->allocate());
  DFC_TRY(impl->prepareKernels());
  impl->planBlocked();
  return Executor(std::move(impl));
}

Status Executor::setInput(ir::ValueId id, const ir::Tensor& tensor) {
  const ir::Graph& g = m_impl->graph;
  if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return makeError("setInput: unknown value " + std::to_string(id));
  const ir::Value& v = g.value(id);
  if (v.kind != ValueKind::Input) return makeError("setInput: '" + v.name + "' is not a graph input");
  if (tensor.type() != v.type || tensor.empty())
    return makeError("input '" + v.name + "' expects " + v.type.toString() + ", got " + tensor.type().toString());
  std::memcpy(m_impl->storage[static_cast<size_t>(id)].bytes(), tensor.bytes(), tensor.byteSize());
  return {};
}

Status Executor::step(bool forwardOnly, const std::function<void(const SectionCall&)>& onSection) {
  m_impl->ctx.setEvaluating(forwardOnly);
  // The first step of each kind runs every thread's share of every loop on
  // that thread (ThreadPool::setHomesOnly), so that later steps allocate nothing.
  bool& warmed = m_impl->warmed[forwardOnly ? 1 : 0];
  m_impl->pool.setHomesOnly(!warmed);
  warmed = true;
  // With gradient accumulation, optimizer sections run on every accumulationSteps-th training step only.
  const bool optimizerStep = !forwardOnly && (m_impl->trainingSteps + 1) % m_impl->accumulationSteps == 0;
  for (size_t s : m_impl->schedule) {
    const SectionRun& run = m_impl->sections[s];
    if (forwardOnly && !ir::roleInfo(run.section->type).inEvaluation) continue;
    if (!forwardOnly && !optimizerStep && run.section->type == ir::NodeRole::Optimizer) continue;
    const auto start = std::chrono::steady_clock::now();
    DFC_TRY(m_impl->runSection(run));
    const auto stop = std::chrono::steady_clock::now();
    if (onSection) {
      SectionCall info;
      info.sectionId = run.section->id;
      info.start = start;
      info.durationUs = std::chrono::duration<double, std::micro>(stop - start).count();
      info.bytes = run.bytes;
      onSection(info);
    }
  }
  if (forwardOnly) return {};
  m_impl->applyUpdatesTimed(optimizerStep);
  ++m_impl->trainingSteps;
  return {};
}

// Between optimizer steps only the gradient sums are written back; on one,
// everything else is and the sums start again from zero.
void Executor::Impl::applyUpdates(bool optimizerStep) {
  const bool accumulating = accumulationSteps > 1;
  auto applies = [&](const Update& u) { return !accumulating || u.gradientSum != optimizerStep; };
  // Stage persistent sources first, so an update never reads an already-updated target.
  for (Update& u : updates)
    if (!u.staging.empty() && applies(u)) std::memcpy(u.staging.bytes(), u.source->bytes(), u.source->byteSize());
  for (Update& u : updates) {
    if (accumulating && u.gradientSum && optimizerStep) std::memset(u.target->bytes(), 0, u.target->byteSize());
    if (!applies(u)) continue;
    const ir::Tensor& from = u.staging.empty() ? *u.source : u.staging;
    if (from.bytes() != u.target->bytes()) std::memcpy(u.target->bytes(), from.bytes(), from.byteSize());
  }
}

const ir::Tensor& Executor::tensor(ir::ValueId id) const {
  static const ir::Tensor kEmpty;
  if (id < 0 || static_cast<size_t>(id) >= m_impl->storage.size()) return kEmpty;
  return m_impl->storage[static_cast<size_t>(id)];
}

size_t Executor::arenaBytes() const { return m_impl->arenaBytes; }
int Executor::threads() const { return m_impl->pool.threads(); }
const FusionStats& Executor::fusionStats() const { return m_impl->fusion; }
int Executor::updatesInPlace() const { return m_impl->updatesInPlace; }

std::vector<KernelTime> Executor::kernelProfile() const {
  std::vector<KernelTime> out;
  for (const KernelTime& t : m_impl->profile)
    if (t.calls > 0) out.push_back(t);
  std::stable_sort(out.begin(), out.end(), [](const KernelTime& a, const KernelTime& b) { return a.totalUs > b.totalUs; });
  return out;
}

void Executor::resetKernelProfile() {
  for (KernelTime& t : m_impl->profile) {
    t.calls = 0;
    t.totalUs = 0;
    t.libraryUs = 0;
  }
}

}  // namespace dfc::runtime
