#include "runtime/OneDnnJoins.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "runtime/StepFusion.h"

namespace dfc::runtime {
namespace {

enum class Role { Other, OnOneDnn, Joinable };

// A convolution and the values it reads and writes once its group's
// epilogue (bias, residual add, activation) is applied.
struct ConvValues {
  ir::NodeId node = ir::kNoNode;
  ir::ValueId x = ir::kNoValue, skip = ir::kNoValue, y = ir::kNoValue;
  Role role = Role::Other;
};

// A Winograd conv over at least this many channels keeps Winograd rather
// than join: ResNet-50 b8, one thread, F(4x4) on layers 2-3's 3x3s (128 and
// 256 channels, 392 and 128 tiles) took 9.3-9.9 ms against 14.9-16.0 on
// oneDNN's direct conv; on layer 1's (64 channels) 16.0 against 16.3, where
// joining saves the reorders around it.
constexpr int64_t kWinogradKeepsChannels = 128;

bool keepsWinograd(const ConvShape& s, ConvAlgo algo) {
  const bool winograd = algo == ConvAlgo::Winograd2 || algo == ConvAlgo::Winograd4;
  return winograd && std::min(s.c, s.o) >= kWinogradKeepsChannels;
}

Role roleOf(const ir::Graph& graph, const ir::Node& node, ConvAlgoRequest request) {
  const auto s = convShapeOf(graph, node);
  if (!s || s->pass != ConvPassKind::Forward) return Role::Other;
  const ConvAlgo algo = chooseConvAlgo(*s, request);
  if (onOneDnn(algo)) return s->group <= 1 ? Role::OnOneDnn : Role::Other;
  const bool joinable =
      node.op == ir::OpKind::Conv2d && request == ConvAlgoRequest::Auto && s->stableWeights && !keepsWinograd(*s, algo);
  return joinable ? Role::Joinable : Role::Other;
}

// The conv a group starts with, and what its members make of its output (as
// Executor's prepareConvEpilogue takes them).
std::optional<ConvValues> convValuesOf(const ir::Graph& graph, const FusionGroup& group, ConvAlgoRequest request) {
  const ir::Node& conv = graph.node(group.nodes[0]);
  if (conv.op != ir::OpKind::Conv2d && conv.op != ir::OpKind::Conv) return std::nullopt;
  ConvValues c{conv.id, conv.inputs[0], ir::kNoValue, conv.outputs[0], roleOf(graph, conv, request)};
  const bool epilogue = group.kind == FusionKind::BiasEpilogue || group.kind == FusionKind::ConvEpilogue;
  for (size_t i = 1; epilogue && i < group.nodes.size(); ++i) {
    const ir::Node& member = graph.node(group.nodes[i]);
    if (member.op == ir::OpKind::Add) c.skip = member.inputs[0] == c.y ? member.inputs[1] : member.inputs[0];
    c.y = member.outputs[0];
  }
  return c;
}

size_t root(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Unions the convolutions that share a value every reader and the writer of
// which are among them.
std::vector<size_t> linkConvs(const std::vector<ConvValues>& convs, const std::vector<std::vector<ir::NodeId>>& users,
                              const std::vector<bool>& leavesStep) {
  std::map<ir::ValueId, size_t> writer;
  std::map<ir::ValueId, std::vector<size_t>> readers;
  for (size_t i = 0; i < convs.size(); ++i) {
    readers[convs[i].x].push_back(i);
    if (convs[i].skip != ir::kNoValue) readers[convs[i].skip].push_back(i);
    writer[convs[i].y] = i;
  }
  std::vector<size_t> parent(convs.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  for (const auto& [v, rs] : readers) {
    const auto w = writer.find(v);
    if (w == writer.end() || leavesStep[static_cast<size_t>(v)] || rs.size() != users[static_cast<size_t>(v)].size())
      continue;
    for (size_t r : rs) parent[root(parent, r)] = root(parent, w->second);
  }
  return parent;
}

}  // namespace

std::set<ir::NodeId> planOneDnnJoins(const ir::Graph& graph, const std::vector<std::vector<FusionGroup>>& groups,
                                     const std::vector<std::vector<ir::NodeId>>& users,
                                     const std::vector<bool>& leavesStep, ConvAlgoRequest request) {
  std::vector<ConvValues> convs;
  for (const auto& section : groups)
    for (const FusionGroup& group : section)
      if (auto c = convValuesOf(graph, group, request); c && c->role != Role::Other) convs.push_back(*c);
  std::vector<size_t> parent = linkConvs(convs, users, leavesStep);
  std::vector<bool> reachesOneDnn(convs.size());
  for (size_t i = 0; i < convs.size(); ++i)
    if (convs[i].role == Role::OnOneDnn) reachesOneDnn[root(parent, i)] = true;
  std::set<ir::NodeId> joins;
  for (size_t i = 0; i < convs.size(); ++i)
    if (convs[i].role == Role::Joinable && reachesOneDnn[root(parent, i)]) joins.insert(convs[i].node);
  return joins;
}

std::set<ir::NodeId> planOneDnnJoins(const ir::Graph& graph, const partition::Plan& plan, ConvAlgoRequest request) {
  const auto users = graph.computeUsers();
  std::vector<bool> leavesStep(graph.values.size(), false);
  for (ir::ValueId v : graph.outputs) leavesStep[static_cast<size_t>(v)] = true;
  for (const ir::StateUpdate& u : graph.updates) leavesStep[static_cast<size_t>(u.newValue)] = true;
  return planOneDnnJoins(graph, planStepFusion(graph, plan, users, leavesStep, true), users, leavesStep, request);
}

}  // namespace dfc::runtime
