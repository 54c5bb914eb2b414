#include "arch/CostModel.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace dfc::arch {
namespace {

double flopOf(const ir::Graph& g, const ir::Node& n) {
  auto numel = [&](ir::ValueId v) { return static_cast<double>(g.value(v).type.numElements()); };
  const auto& out = g.value(n.outputs[0]).type.shape;
  switch (n.op) {
    case ir::OpKind::MatMul: {
      const auto& a = g.value(n.inputs[0]).type.shape;
      double k = n.intAttr("trans_a") ? a[0] : a[1];
      return 2.0 * numel(n.outputs[0]) * k;
    }
    case ir::OpKind::Conv2d: {
      const auto& w = g.value(n.inputs[1]).type.shape;
      return 2.0 * numel(n.outputs[0]) * static_cast<double>(w[1] * w[2] * w[3]);
    }
    case ir::OpKind::Conv2dGradInput: {  // same MACs as the forward conv
      const auto& w = g.value(n.inputs[1]).type.shape;
      return 2.0 * numel(n.inputs[0]) * static_cast<double>(w[1] * w[2] * w[3]);
    }
    case ir::OpKind::Conv2dGradWeight: {
      return 2.0 * numel(n.inputs[0]) * static_cast<double>(out[1] * out[2] * out[3]);
    }
    case ir::OpKind::Reshape: return 0;
    case ir::OpKind::SoftmaxCrossEntropy:
    case ir::OpKind::SoftmaxCrossEntropyGrad:
    case ir::OpKind::Softmax: return 5.0 * numel(n.inputs[0]);
    case ir::OpKind::MomentumUpdate: return 4.0 * numel(n.inputs[0]);
    default: {
      double total = 0;
      for (ir::ValueId o : n.outputs) total += numel(o);
      return total;
    }
  }
}

}  // namespace

OpCost CostModel::opCost(const ir::Graph& g, const ir::Node& n) const {
  OpCost c;
  c.flop = flopOf(g, n);
  for (ir::ValueId v : n.inputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  for (ir::ValueId v : n.outputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  // PCUs: enough lanes x stages to sustain the op at clock rate within ~1000
  // cycles per element wave; at least one PCU per op in the pipeline.
  double flopPerPcuCycle = 2.0 * m_arch.pcuLanes * m_arch.pcuStages;
  double pcusWanted = c.flop / (flopPerPcuCycle * 1000.0);
  c.pcus = std::clamp(static_cast<int>(std::ceil(pcusWanted)), 1, std::max(1, m_arch.totalPcus() / 4));
  // PMUs: operand and result buffers, double-buffered tiles of at most one PMU each,
  // weights fully resident.
  double resident = 0;
  for (ir::ValueId v : n.inputs)
    if (g.value(v).kind == ir::ValueKind::Param) resident += static_cast<double>(g.value(v).type.byteSize());
  int buffers = static_cast<int>(n.inputs.size() + n.outputs.size()) * 2;
  c.pmus = buffers + static_cast<int>(std::ceil(resident / m_arch.pmuBytes));
  return c;
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) const {
  partition::SectionEstimate e;
  std::set<ir::ValueId> produced;
  for (ir::NodeId id : nodes)
    for (ir::ValueId o : g.node(id).outputs) produced.insert(o);
  std::set<ir::ValueId> external;
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    OpCost c = opCost(g, n);
    e.flop += c.flop;
    e.pcus += c.pcus;
    e.pmus += c.pmus;
    for (ir::ValueId in : n.inputs)
      if (!produced.count(in)) external.insert(in);
  }
  // Results leave the section unless only used inside it; count all outputs of
  // the last node and any value used outside (conservatively: every produced value
  // not consumed inside).
  std::set<ir::ValueId> consumedInside;
  for (ir::NodeId id : nodes)
    for (ir::ValueId in : g.node(id).inputs) consumedInside.insert(in);
  for (ir::ValueId v : produced)
    if (!consumedInside.count(v)) external.insert(v);
  for (ir::ValueId v : external) e.ddrBytes += static_cast<double>(g.value(v).type.byteSize());

  e.computeUs = e.flop / (m_arch.peakTflops * 1e12) * 1e6;
  e.memoryUs = e.ddrBytes / (m_arch.offChipGbps() * 1e9) * 1e6;
  // Pipeline fill: one pass through every stage of each PCU in the chain.
  double fillUs = static_cast<double>(nodes.size() * static_cast<size_t>(m_arch.pcuStages)) / (m_arch.clockGhz * 1e3);
  e.latencyUs = std::max(e.computeUs, e.memoryUs) + fillUs;
  return e;
}

}  // namespace dfc::arch
