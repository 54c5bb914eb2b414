#include "runtime/SectionFusion.h"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "runtime/kernels/Epilogue.h"
#include "runtime/kernels/Sgemm.h"

namespace dfc::runtime {
namespace {

using ir::OpKind;

FusionGroup group(FusionKind kind, std::vector<ir::NodeId> nodes) {
  FusionGroup g;
  g.kind = kind;
  g.nodes = std::move(nodes);
  return g;
}

bool isF32(const ir::Value& v) { return v.type.dtype == ir::DType::F32; }

// Ops whose output element i is a function of element i of each input (Kernel: TileKernel).
bool isElementwise(OpKind op) {
  switch (op) {
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Relu: case OpKind::ReluGrad:
    case OpKind::Scale: case OpKind::Gelu: case OpKind::GeluGrad:
      return true;
    default:
      return false;
  }
}

// The element count every tensor of `n` has when it can join a chain, else -1.
int64_t chainSize(const ir::Graph& g, const ir::Node& n) {
  if (!isElementwise(n.op) || n.outputs.size() != 1) return -1;
  const ir::Value& out = g.value(n.outputs[0]);
  const int64_t size = out.type.numElements();
  if (!isF32(out) || size <= 0) return -1;
  for (ir::ValueId v : n.inputs)
    if (!isF32(g.value(v)) || g.value(v).type.numElements() != size) return -1;
  return size;
}

// The matmul, conv2d or conv whose only consumer is the bias_add `b` (same section), or kNoNode.
ir::NodeId biasProducer(const ir::Graph& g, const ir::Node& b, const std::set<ir::NodeId>& inSection,
                        const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep) {
  if (b.op != OpKind::BiasAdd || b.inputs.size() != 2) return ir::kNoNode;
  const ir::ValueId x = b.inputs[0];
  const ir::NodeId p = g.value(x).producer;
  if (p == ir::kNoNode || !inSection.count(p) || users[static_cast<size_t>(x)].size() != 1 || leavesStep[static_cast<size_t>(x)])
    return ir::kNoNode;
  const ir::Node& prod = g.node(p);
  const ir::Value& bias = g.value(b.inputs[1]);
  const ir::Shape& shape = g.value(x).type.shape;
  if (!isF32(bias) || !isF32(g.value(x)) || shape.size() < 2 || bias.type.numElements() != shape[1]) return ir::kNoNode;
  if (prod.op == OpKind::MatMul && shape.size() == 2) return p;
  if ((prod.op == OpKind::Conv2d || prod.op == OpKind::Conv) && shape.size() == 4) return p;
  return ir::kNoNode;
}

// A SiLU joins its conv from this many outputs (1.5 MB, most of a 2 MB L2)
// on. On the tile it costs as much compute as on its own (0.45 ns an
// element); it saves the pass over memory only where the output would have
// left L2. EfficientNet-B0, per layer: 1.6-4.8 MB outputs 4-20% faster
// fused, 0.45-1.2 MB ones 4-12% slower.
constexpr int64_t kMinFusedSiluFloats = int64_t{3} << 17;

// A relu, clip, silu or hard_swish (kernels::activationOf) on an f32 value
// of its own size: what a conv can apply on its output tile. Hard-swish is
// three operations on the tile and always joins (MobileNetV3 x1.05 faster
// at 1 thread, x1.07 at 2).
bool isConvActivation(const ir::Graph& g, const ir::Node& n) {
  if (n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  const ir::Value &x = g.value(n.inputs[0]), &y = g.value(n.outputs[0]);
  if (!isF32(x) || !isF32(y) || x.type.numElements() != y.type.numElements()) return false;
  kernels::ConvEpilogue e;
  if (!kernels::activationOf(n, e)) return false;
  return e.activation != kernels::ConvActivation::Silu || x.type.numElements() >= kMinFusedSiluFloats;
}

// The value x feeds only one node in this section and leaves no step.
bool onlyFeeds(ir::ValueId x, const std::set<ir::NodeId>& inSection, const ir::Graph& g,
               const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep) {
  const ir::NodeId p = g.value(x).producer;
  return p != ir::kNoNode && inSection.count(p) && users[static_cast<size_t>(x)].size() == 1 &&
         !leavesStep[static_cast<size_t>(x)];
}

// The conv (then its bias_add, from `biasOf`: bias_add -> producer) whose
// result is `v`, as its nodes in order; empty when v is not such a result.
std::vector<ir::NodeId> convResult(const ir::Graph& g, ir::ValueId v, const std::map<ir::NodeId, ir::NodeId>& biasOf) {
  auto isConv = [&](ir::NodeId n) { return g.node(n).op == OpKind::Conv2d || g.node(n).op == OpKind::Conv; };
  const ir::NodeId p = g.value(v).producer;
  if (p == ir::kNoNode) return {};
  if (isConv(p) && g.node(p).outputs.size() == 1) return {p};
  if (auto it = biasOf.find(p); it != biasOf.end() && isConv(it->second)) return {it->second, p};
  return {};
}

// A residual add of a conv's result: add(r, skip) or add(skip, r) with r the
// conv (+ bias) result feeding only it and skip another f32 value of r's
// shape. The conv's nodes, then the add; empty when `add` is not one.
std::vector<ir::NodeId> residualAdd(const ir::Graph& g, const ir::Node& add, ir::NodeId addId,
                                    const std::set<ir::NodeId>& inSection,
                                    const std::map<ir::NodeId, ir::NodeId>& biasOf,
                                    const std::vector<std::vector<ir::NodeId>>& users,
                                    const std::vector<bool>& leavesStep) {
  if (add.op != OpKind::Add || add.inputs.size() != 2 || add.outputs.size() != 1 || add.inputs[0] == add.inputs[1])
    return {};
  for (int k = 0; k < 2; ++k) {
    const ir::ValueId r = add.inputs[static_cast<size_t>(k)], skip = add.inputs[static_cast<size_t>(1 - k)];
    const ir::Value &rv = g.value(r), &sv = g.value(skip), &yv = g.value(add.outputs[0]);
    if (!isF32(rv) || !isF32(sv) || !isF32(yv) || rv.type.shape != sv.type.shape || rv.type.shape != yv.type.shape)
      continue;
    if (!onlyFeeds(r, inSection, g, users, leavesStep)) continue;
    std::vector<ir::NodeId> nodes = convResult(g, r, biasOf);
    if (nodes.empty()) continue;
    nodes.push_back(addId);
    return nodes;
  }
  return {};
}

// conv (+ its bias_add) + residual add groups with no activation after them
// (MobileNetV2's projections), by add node, for the adds no group in `out` holds.
void addResidualGroups(const ir::Graph& g, const std::vector<ir::NodeId>& nodes, const std::set<ir::NodeId>& inSection,
                       const std::map<ir::NodeId, ir::NodeId>& biasOf,
                       const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep,
                       std::map<ir::NodeId, FusionGroup>& out) {
  std::set<ir::NodeId> held;
  for (const auto& [key, group] : out) held.insert(group.nodes.begin(), group.nodes.end());
  for (ir::NodeId n : nodes) {
    if (held.count(n)) continue;
    std::vector<ir::NodeId> members = residualAdd(g, g.node(n), n, inSection, biasOf, users, leavesStep);
    if (members.empty() || std::any_of(members.begin(), members.end(), [&](ir::NodeId m) { return held.count(m); }))
      continue;
    held.insert(members.begin(), members.end());
    out[n] = group(FusionKind::ConvEpilogue, members);
  }
}

// conv (+ its bias_add) (+ a residual add) + activation groups, by activation
// node, then conv (+ bias_add) + residual add groups, by add node.
std::map<ir::NodeId, FusionGroup> convEpilogues(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                                                const std::set<ir::NodeId>& inSection,
                                                const std::map<ir::NodeId, ir::NodeId>& biasOf,
                                                const std::vector<std::vector<ir::NodeId>>& users,
                                                const std::vector<bool>& leavesStep) {
  std::map<ir::NodeId, FusionGroup> out;
  for (ir::NodeId n : nodes) {
    const ir::Node& act = g.node(n);
    if (!isConvActivation(g, act) || !onlyFeeds(act.inputs[0], inSection, g, users, leavesStep)) continue;
    std::vector<ir::NodeId> members = convResult(g, act.inputs[0], biasOf);
    if (members.empty()) {
      const ir::NodeId p = g.value(act.inputs[0]).producer;
      members = residualAdd(g, g.node(p), p, inSection, biasOf, users, leavesStep);
    }
    if (members.empty()) continue;
    members.push_back(n);
    out[n] = group(FusionKind::ConvEpilogue, members);
  }
  addResidualGroups(g, nodes, inSection, biasOf, users, leavesStep, out);
  return out;
}

// Values produced in the chain whose every user is a chain member and that leave no step.
std::vector<ir::ValueId> tileValues(const FusionGroup& chain, const std::vector<std::vector<ir::NodeId>>& users,
                                    const std::vector<bool>& leavesStep, const ir::Graph& g) {
  const std::set<ir::NodeId> members(chain.nodes.begin(), chain.nodes.end());
  std::vector<ir::ValueId> kept;
  for (ir::NodeId n : chain.nodes) {
    const ir::ValueId v = g.node(n).outputs[0];
    const auto& us = users[static_cast<size_t>(v)];
    if (leavesStep[static_cast<size_t>(v)] || us.empty()) continue;
    if (std::all_of(us.begin(), us.end(), [&](ir::NodeId u) { return members.count(u) > 0; })) kept.push_back(v);
    if (kept.size() == static_cast<size_t>(kMaxTileValues)) break;
  }
  return kept;
}

void closeChain(FusionGroup& open, std::vector<FusionGroup>& groups, const ir::Graph& g,
                const std::vector<std::vector<ir::NodeId>>& users, const std::vector<bool>& leavesStep) {
  if (open.nodes.empty()) return;
  if (open.nodes.size() == 1) {
    groups.push_back(group(FusionKind::Single, open.nodes));
  } else {
    open.kind = FusionKind::Chain;
    open.inTile = tileValues(open, users, leavesStep, g);
    groups.push_back(open);
  }
  open = {};
}

// Multiply-adds of a 2-D f32 matmul group (Single or BiasEpilogue), or 0 for any other group.
int64_t gemmMacs(const ir::Graph& g, const FusionGroup& group) {
  if (group.kind != FusionKind::Single && group.kind != FusionKind::BiasEpilogue) return 0;
  const ir::Node& n = g.node(group.nodes[0]);
  if (n.op != OpKind::MatMul || n.inputs.size() != 2 || !isF32(g.value(n.outputs[0]))) return 0;
  const ir::Shape &a = g.value(n.inputs[0]).type.shape, &y = g.value(n.outputs[0]).type.shape;
  if (a.size() != 2 || y.size() != 2) return 0;
  return y[0] * y[1] * (n.intAttr("trans_a") ? a[0] : a[1]);
}

// Consecutive GEMM groups, the second reading nothing the first writes, both
// big enough that each fills a thread, become one SideBySide group.
void pairIndependentGemms(const ir::Graph& g, std::vector<FusionGroup>& groups) {
  std::vector<FusionGroup> out;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i + 1 < groups.size() && gemmMacs(g, groups[i]) >= kernels::kMinSplitMacs &&
        gemmMacs(g, groups[i + 1]) >= kernels::kMinSplitMacs) {
      std::set<ir::ValueId> written;
      for (ir::NodeId n : groups[i].nodes) written.insert(g.node(n).outputs.begin(), g.node(n).outputs.end());
      bool independent = true;
      for (ir::NodeId n : groups[i + 1].nodes)
        for (ir::ValueId v : g.node(n).inputs) independent = independent && !written.count(v);
      if (independent) {
        FusionGroup pair;
        pair.kind = FusionKind::SideBySide;
        for (size_t k : {i, i + 1}) pair.nodes.insert(pair.nodes.end(), groups[k].nodes.begin(), groups[k].nodes.end());
        pair.parts = {std::move(groups[i]), std::move(groups[i + 1])};
        out.push_back(std::move(pair));
        ++i;
        continue;
      }
    }
    out.push_back(std::move(groups[i]));
  }
  groups = std::move(out);
}

}  // namespace

std::vector<FusionGroup> planSectionFusion(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes,
                                           const std::vector<std::vector<ir::NodeId>>& users,
                                           const std::vector<bool>& leavesStep, bool enabled) {
  std::vector<FusionGroup> groups;
  if (!enabled) {
    for (ir::NodeId n : nodes) groups.push_back(group(FusionKind::Single, {n}));
    return groups;
  }
  const std::set<ir::NodeId> inSection(nodes.begin(), nodes.end());
  std::map<ir::NodeId, ir::NodeId> epilogueOf;  // producer -> its bias_add
  for (ir::NodeId n : nodes)
    if (ir::NodeId p = biasProducer(graph, graph.node(n), inSection, users, leavesStep); p != ir::kNoNode)
      epilogueOf[p] = n;
  std::set<ir::NodeId> absorbed;
  std::map<ir::NodeId, ir::NodeId> biasOf;  // bias_add -> its producer
  for (const auto& [producer, bias] : epilogueOf) {
    absorbed.insert(producer);
    biasOf[bias] = producer;
  }
  const std::map<ir::NodeId, FusionGroup> convGroups =
      convEpilogues(graph, nodes, inSection, biasOf, users, leavesStep);
  for (const auto& [act, g] : convGroups) absorbed.insert(g.nodes.begin(), g.nodes.end() - 1);

  FusionGroup open;
  int64_t openSize = -1;
  for (ir::NodeId n : nodes) {
    if (absorbed.count(n)) continue;  // runs with its bias_add or activation
    if (auto it = convGroups.find(n); it != convGroups.end()) {
      closeChain(open, groups, graph, users, leavesStep);
      openSize = -1;
      groups.push_back(it->second);
      continue;
    }
    const ir::Node& node = graph.node(n);
    const int64_t size = chainSize(graph, node);
    if (size < 0 || size != openSize) closeChain(open, groups, graph, users, leavesStep);
    if (size >= 0) {
      open.nodes.push_back(n);
      openSize = size;
      continue;
    }
    openSize = -1;
    const ir::NodeId producer = node.op == OpKind::BiasAdd && node.inputs.size() == 2 ? graph.value(node.inputs[0]).producer : ir::kNoNode;
    if (producer != ir::kNoNode && absorbed.count(producer) && epilogueOf[producer] == n)
      groups.push_back(group(FusionKind::BiasEpilogue, {producer, n}));
    else
      groups.push_back(group(FusionKind::Single, {n}));
  }
  closeChain(open, groups, graph, users, leavesStep);
  pairIndependentGemms(graph, groups);
  return groups;
}

void countFusion(const std::vector<FusionGroup>& groups, FusionStats& stats) {
  for (const FusionGroup& g : groups) {
    if (g.kind == FusionKind::BiasEpilogue) ++stats.biasEpilogues;
    if (g.kind == FusionKind::ConvEpilogue) ++stats.convEpilogues;
    if (g.kind == FusionKind::AttentionForward) {
      ++stats.attentionForward;
      stats.attentionLayoutOps += static_cast<int>(g.nodes.size() - g.attention->forwardNodes().size());
    }
    if (g.kind == FusionKind::AttentionBackward) {
      ++stats.attentionBackward;
      stats.attentionLayoutOps += static_cast<int>(g.nodes.size() - g.attention->backwardNodes().size());
    }
    if (g.kind == FusionKind::SideBySide) {
      ++stats.sideBySide;
      countFusion(g.parts, stats);
    }
    if (g.kind != FusionKind::Chain) continue;
    ++stats.chains;
    stats.chainedNodes += static_cast<int>(g.nodes.size());
    stats.tileValues += static_cast<int>(g.inTile.size());
  }
}

}  // namespace dfc::runtime
