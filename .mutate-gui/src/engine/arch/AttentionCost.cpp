#include "arch/AttentionCost.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/AttentionPattern.h"

namespace dfc::arch {
namespace {

double bytesOf(const ir::Graph& g, ir::ValueId v) { return static_cast<double>(g.value(v).type.byteSize()); }

// Rows of a [rows, dim] f32 block one PMU holds.
int64_t blockRows(const ArchSpec& a, int64_t dim, int64_t rows) {
  const int64_t fit = static_cast<int64_t>(a.pmuBytes / (4.0 * static_cast<double>(std::max<int64_t>(1, dim))));
  return std::clamp<int64_t>(fit, 1, std::max<int64_t>(1, rows));
}

// The chain as one GEMM-class operator: the members' FLOP, PCUs sized to that,
// `streams` operand/result tiles double-buffered plus `tiles` single buffers.
OpCost chainCost(const CostModel& cost, const ir::Graph& g, const std::vector<ir::NodeId>& nodes, int inputs,
                 int outputs, int tiles) {
  OpCost c;
  c.cls = OpClass::Gemm;
  c.minPcus = 0;
  for (ir::NodeId n : nodes) {
    const OpCost m = cost.opCost(g, g.node(n));
    c.flop += m.flop;
    c.minPcus += std::max(m.minPcus, 0);
  }
  c.minPcus = std::max(1, c.minPcus);
  const ArchSpec& a = cost.arch();
  // One operator's share of the chip (CostConstants::maxOpShare), as any GEMM gets: more PCUs
  // would also need more PMUs for the combine trees feeding them the streamed tiles.
  const int maxPcus = cost.maxOpPcus();
  const double wanted = std::ceil(c.flop / (a.pcuFlopPerCycle() * cost.constants().targetCycles));
  c.pcus = static_cast<int>(std::clamp(wanted, static_cast<double>(c.minPcus), static_cast<double>(std::max(c.minPcus, maxPcus))));
  c.stages = a.pcuStages;
  c.inputPmus.assign(static_cast<size_t>(inputs), 2);
  c.inputResident.assign(static_cast<size_t>(inputs), false);
  c.outputPmus.assign(static_cast<size_t>(outputs), 2);
  c.outputPartial.assign(static_cast<size_t>(outputs), false);
  c.pmus = 2 * (inputs + outputs) + tiles;
  const TreeUnits trees = cost.treeUnits(c, c.pcus);
  c.treePcus = trees.pcus;
  c.treePmus = trees.pmus;
  c.pmus += c.treePmus;
  return c;
}

TiledAttention forwardPlan(const CostModel& cost, const ir::Graph& g, const ir::AttentionPattern& p) {
  TiledAttention t;
  t.nodes = p.forwardNodes();
  for (ir::NodeId n : t.nodes)
    if (n != p.context) t.neverStored.push_back(g.node(n).outputs[0]);
  t.statsBytes = p.hasBackward() ? static_cast<double>(p.statsBytes()) : 0.0;  // kept for the backward only
  const int64_t queryBlocks = (p.queries + blockRows(cost.arch(), p.dim, p.queries) - 1) / blockRows(cost.arch(), p.dim, p.queries);
  t.restreamBytes = static_cast<double>(queryBlocks - 1) * (bytesOf(g, p.k) + bytesOf(g, p.v));
  // q, k, v in; o and the log-sum-exp out; the score tile and the running max and sum.
  t.cost = chainCost(cost, g, t.nodes, 3, 2, 2);
  return t;
}

TiledAttention backwardPlan(const CostModel& cost, const ir::Graph& g, const ir::AttentionPattern& p) {
  TiledAttention t;
  t.nodes = p.backwardNodes();
  for (ir::NodeId n : {p.dProbs, p.dSoftmax, p.dMask, p.dScale})
    if (n != ir::kNoNode) t.neverStored.push_back(g.node(n).outputs[0]);
  t.neverStored.push_back(p.probs);  // rebuilt per tile from the scores and the log-sum-exp
  t.extraReads = {p.out};
  t.statsBytes = static_cast<double>(p.statsBytes());
  const int64_t keyBlocks = (p.keys + blockRows(cost.arch(), p.dim, p.keys) - 1) / blockRows(cost.arch(), p.dim, p.keys);
  const double dq = bytesOf(g, g.node(p.dQuery).outputs[0]);
  t.restreamBytes = static_cast<double>(keyBlocks - 1) *
                    (bytesOf(g, p.q) + bytesOf(g, p.dOut) + bytesOf(g, p.out) + t.statsBytes + 2 * dq);
  // q, k, v, o, dO, log-sum-exp in; dq, dk, dv out; the P and dS tiles and D = rowsum(dO o).
  t.cost = chainCost(cost, g, t.nodes, 6, 3, 3);
  return t;
}

}  // namespace

std::vector<TiledAttention> tiledAttention(const CostModel& cost, const ir::Graph& graph,
                                           const std::vector<ir::NodeId>& nodes,
                                           const std::vector<std::vector<ir::NodeId>>& users) {
  std::vector<TiledAttention> out;
  const std::set<ir::NodeId> inside(nodes.begin(), nodes.end());
  auto whole = [&](const std::vector<ir::NodeId>& chain) {
    return std::all_of(chain.begin(), chain.end(), [&](ir::NodeId n) { return inside.count(n) > 0; });
  };
  // The softmax heading each chain the section touches (its own, or the one its softmax_grad differentiates).
  std::set<ir::NodeId> heads;
  for (ir::NodeId n : nodes) {
    const ir::Node& node = graph.node(n);
    if (node.op == ir::OpKind::Softmax) heads.insert(n);
    if (node.op == ir::OpKind::SoftmaxGrad && node.inputs.size() == 2) {
      const ir::NodeId producer = graph.value(node.inputs[1]).producer;
      if (producer != ir::kNoNode && graph.node(producer).op == ir::OpKind::Softmax) heads.insert(producer);
    }
  }
  if (heads.empty()) return out;
  std::vector<bool> leavesStep(graph.values.size(), false);
  for (ir::ValueId v : graph.outputs) leavesStep[static_cast<size_t>(v)] = true;
  for (const ir::StateUpdate& u : graph.updates) leavesStep[static_cast<size_t>(u.newValue)] = true;
  for (ir::NodeId head : heads) {
    ir::AttentionPattern p;
    if (!ir::matchAttentionForward(graph, graph.node(head), users, leavesStep, p)) continue;
    const bool training = !p.probsOnlyInForward(users);
    if (training && !ir::matchAttentionBackward(graph, users, leavesStep, p)) continue;  // probabilities needed elsewhere
    if (whole(p.forwardNodes())) out.push_back(forwardPlan(cost, graph, p));
    if (training && whole(p.backwardNodes())) out.push_back(backwardPlan(cost, graph, p));
  }
  return out;
}

}  // namespace dfc::arch
