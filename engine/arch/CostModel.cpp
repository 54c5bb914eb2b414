#include "arch/CostModel.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "arch/FanIn.h"

namespace dfc::arch {
namespace {

struct GemmDims {
  double batch = 1, m = 1, n = 1, k = 1;
};

double numelOf(const ir::Graph& g, ir::ValueId v) { return static_cast<double>(g.value(v).type.numElements()); }

bool isGemm(ir::OpKind op) {
  switch (op) {
    case ir::OpKind::MatMul:
    case ir::OpKind::BatchMatMul:
    case ir::OpKind::Conv2d:
    case ir::OpKind::Conv2dGradInput:
    case ir::OpKind::Conv2dGradWeight: return true;
    default: return false;
  }
}

bool isLayout(ir::OpKind op) {
  return op == ir::OpKind::Reshape || op == ir::OpKind::Transpose || op == ir::OpKind::Slice ||
         op == ir::OpKind::SliceGrad;
}

// Pipeline stages of one elementwise stage group: the arithmetic steps per element.
int stagesOf(ir::OpKind op) {
  switch (op) {
    case ir::OpKind::Add:
    case ir::OpKind::Sub:
    case ir::OpKind::Mul:
    case ir::OpKind::Scale:
    case ir::OpKind::BiasAdd:
    case ir::OpKind::Relu:
    case ir::OpKind::ReluGrad:
    case ir::OpKind::CausalMask:
    case ir::OpKind::ReduceSum:
    case ir::OpKind::Embedding: return 1;
    case ir::OpKind::MaxPool2d:
    case ir::OpKind::MaxPool2dGrad:
    case ir::OpKind::EmbeddingGrad:
    case ir::OpKind::SgdUpdate: return 2;
    case ir::OpKind::Softmax:
    case ir::OpKind::SoftmaxGrad:
    case ir::OpKind::MomentumUpdate: return 4;
    case ir::OpKind::SoftmaxCrossEntropyGrad: return 5;
    case ir::OpKind::Gelu:
    case ir::OpKind::LayerNorm:
    case ir::OpKind::SoftmaxCrossEntropy: return 6;
    case ir::OpKind::GeluGrad: return 8;
    case ir::OpKind::LayerNormGrad: return 10;
    default: return 2;
  }
}

// GEMM-equivalent dimensions; convolutions as their im2col GEMM.
GemmDims gemmDims(const ir::Graph& g, const ir::Node& n) {
  GemmDims d;
  const auto& out = g.value(n.outputs[0]).type.shape;
  auto dim = [](const std::vector<int64_t>& s, size_t fromEnd) {
    return s.size() >= fromEnd ? static_cast<double>(s[s.size() - fromEnd]) : 1.0;
  };
  switch (n.op) {
    case ir::OpKind::MatMul:
    case ir::OpKind::BatchMatMul: {
      const auto& a = g.value(n.inputs[0]).type.shape;
      d.m = dim(out, 2);
      d.n = dim(out, 1);
      d.k = n.intAttr("trans_a") ? dim(a, 2) : dim(a, 1);
      d.batch = std::max(1.0, numelOf(g, n.outputs[0]) / std::max(1.0, d.m * d.n));
      break;
    }
    case ir::OpKind::Conv2d: {  // y[N,Co,Ho,Wo] = im2col(x)[N*Ho*Wo, Ci*kh*kw] @ w^T
      const auto& w = g.value(n.inputs[1]).type.shape;
      d.m = dim(out, 4) * dim(out, 2) * dim(out, 1);
      d.n = dim(out, 3);
      d.k = static_cast<double>(w[1] * w[2] * w[3]);
      break;
    }
    case ir::OpKind::Conv2dGradInput: {  // dx[N,Ci,H,W]: dy patches @ w
      const auto& w = g.value(n.inputs[1]).type.shape;
      d.m = dim(out, 4) * dim(out, 2) * dim(out, 1);
      d.n = dim(out, 3);
      d.k = static_cast<double>(w[0] * w[2] * w[3]);
      break;
    }
    case ir::OpKind::Conv2dGradWeight: {  // dw[Co, Ci*kh*kw] = dy^T @ im2col(x)
      const auto& dy = g.value(n.inputs[0]).type.shape;
      d.m = dim(out, 4);
      d.n = numelOf(g, n.outputs[0]) / std::max(1.0, d.m);
      d.k = dim(dy, 4) * dim(dy, 2) * dim(dy, 1);
      break;
    }
    default: break;
  }
  return d;
}

double flopOf(const ir::Graph& g, const ir::Node& n) {
  if (isGemm(n.op)) {
    GemmDims d = gemmDims(g, n);
    return 2.0 * d.batch * d.m * d.n * d.k;
  }
  switch (n.op) {
    case ir::OpKind::Reshape:
    case ir::OpKind::Transpose:
    case ir::OpKind::Slice:
    case ir::OpKind::SliceGrad: return 0;
    default: {
      double total = 0;
      for (ir::ValueId o : n.outputs) total += numelOf(g, o);
      double in = n.inputs.empty() ? 0 : numelOf(g, n.inputs[0]);
      return std::max(total, in) * stagesOf(n.op);
    }
  }
}

// Distinct sources of sink `b` when `sources` units are wired round robin to
// `sinks` (the lowering's fanInOut).
int roundRobinFeeders(int sources, int sinks, int b) {
  if (sources <= 0 || sinks <= 0) return 0;
  return sources >= sinks ? (sources - b + sinks - 1) / sinks : 1;
}

// A reduction over leading axes (bias gradients, a scalar loss): replicas
// splitting the rows each produce a partial result. Reductions over the last
// axis (softmax, layer norm statistics) keep whole rows per replica.
bool partialOutput(const ir::Graph& g, const ir::Node& n, ir::ValueId out) {
  if (n.inputs.empty() || numelOf(g, out) >= numelOf(g, n.inputs[0])) return false;
  const auto& in = g.value(n.inputs[0]).type.shape;
  const auto& o = g.value(out).type.shape;
  return numelOf(g, out) == 1 || (!in.empty() && !o.empty() && o.back() == in.back());
}

}  // namespace

TreeUnits CostModel::treeUnits(const OpCost& c, int share) const {
  const int bound = unitFanInBound(m_arch);
  TreeUnits t;
  int heads = 0;  // PCUs reading the operands; each replica's last one writes the results
  if (c.cls == OpClass::Gemm) heads = std::max(1, share);
  else if (c.cls == OpClass::Elementwise) heads = std::max(1, share / std::max(1, c.minPcus));
  for (size_t k = 0; k < c.outputPmus.size(); ++k) {
    const int outs = c.outputPmus[k];
    for (int b = 0; b < outs; ++b) {
      int feeders = 0;
      if (heads > 0) feeders = roundRobinFeeders(heads, outs, b);
      else
        for (int p : c.inputPmus) feeders += roundRobinFeeders(p, outs, b);
      int units = combineTreeUnits(feeders, bound);
      bool sums = heads > 1 && k < c.outputPartial.size() && c.outputPartial[k];
      (sums ? t.pcus : t.pmus) += units;
    }
  }
  for (int h = 0; h < heads; ++h) {
    int feeders = 0;
    for (int p : c.inputPmus) feeders += roundRobinFeeders(p, heads, h);
    t.pmus += combineTreeUnits(feeders, bound);
  }
  return t;
}

OpCost CostModel::opCost(const ir::Graph& g, const ir::Node& n) const {
  OpCost c;
  c.flop = flopOf(g, n);
  for (ir::ValueId v : n.inputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  for (ir::ValueId v : n.outputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  const double lanes = m_arch.pcuLanes;
  const int maxPcus = std::max(1, m_arch.pcusPerChip() * m_arch.chips / kMaxOpShare);
  auto residentPmus = [&](ir::ValueId v) {
    return std::max(1, static_cast<int>(std::ceil(static_cast<double>(g.value(v).type.byteSize()) / m_arch.pmuBytes)));
  };
  c.inputResident.assign(n.inputs.size(), false);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    c.inputResident[i] = g.value(n.inputs[i]).kind == ir::ValueKind::Param;

  if (isGemm(n.op)) {
    c.cls = OpClass::Gemm;
    GemmDims d = gemmDims(g, n);
    double tiles = d.batch * std::ceil(d.m / lanes) * std::ceil(d.n / lanes);
    double wanted = std::ceil(c.flop / (m_arch.pcuFlopPerCycle() * kTargetCycles));
    c.pcus = static_cast<int>(std::clamp(wanted, 1.0, std::max(1.0, std::min<double>(tiles, maxPcus))));
    c.minPcus = 1;
    c.stages = m_arch.pcuStages;
    if (n.inputs.size() > 1 && n.op != ir::OpKind::Conv2dGradWeight) c.inputResident[1] = true;  // reused operand
  } else if (isLayout(n.op)) {
    c.cls = OpClass::Layout;
    c.pcus = c.minPcus = 0;
  } else {
    c.cls = OpClass::Elementwise;
    c.stages = stagesOf(n.op);
    int groupPcus = (c.stages + m_arch.pcuStages - 1) / m_arch.pcuStages;
    double numel = n.inputs.empty() ? 1 : numelOf(g, n.inputs[0]);
    for (ir::ValueId o : n.outputs) numel = std::max(numel, numelOf(g, o));
    double groups = std::ceil(numel / (lanes * kTargetCycles));
    int maxGroups = std::max(1, maxPcus / groupPcus);
    c.minPcus = groupPcus;
    c.pcus = groupPcus * static_cast<int>(std::clamp(groups, 1.0, static_cast<double>(maxGroups)));
  }
  // PMUs: resident operands whole, streamed ones as double-buffered tiles.
  for (size_t i = 0; i < n.inputs.size(); ++i) c.inputPmus.push_back(c.inputResident[i] ? residentPmus(n.inputs[i]) : 2);
  bool accumulates = n.op == ir::OpKind::Conv2dGradWeight || n.op == ir::OpKind::EmbeddingGrad;
  for (ir::ValueId o : n.outputs) c.outputPmus.push_back(accumulates ? residentPmus(o) : 2);
  if (n.op == ir::OpKind::Reshape) {  // a view: no buffer of its own
    c.inputPmus.assign(n.inputs.size(), 0);
    c.outputPmus.assign(n.outputs.size(), 0);
  }
  for (int p : c.inputPmus) c.pmus += p;
  for (int p : c.outputPmus) c.pmus += p;
  c.outputPartial.assign(n.outputs.size(), false);
  if (c.cls == OpClass::Elementwise)
    for (size_t k = 0; k < n.outputs.size(); ++k) c.outputPartial[k] = partialOutput(g, n, n.outputs[k]);
  TreeUnits trees = treeUnits(c, c.pcus);
  c.treePcus = trees.pcus;
  c.treePmus = trees.pmus;
  c.pmus += c.treePmus;
  return c;
}

std::vector<int> CostModel::pcuShares(const ir::Graph& g, const std::vector<ir::NodeId>& nodes, int pcuCap) const {
  std::vector<OpCost> costs;
  int total = 0, totalMin = 0;
  for (ir::NodeId id : nodes) {
    costs.push_back(opCost(g, g.node(id)));
    total += costs.back().pcus;
    totalMin += costs.back().minPcus;
  }
  auto shares = [&](int cap) {
    std::vector<int> s;
    // Give every op its minimum, then share what is left in proportion to the extra it wanted.
    double spare = std::max(0, cap - totalMin);
    double extra = std::max(1, total - totalMin);
    for (const OpCost& c : costs)
      s.push_back(total <= cap ? c.pcus : c.minPcus + static_cast<int>(std::floor((c.pcus - c.minPcus) * spare / extra)));
    return s;
  };
  if (pcuCap <= 0) return shares(total);
  std::vector<int> s = shares(pcuCap);
  // The combine trees' PCUs come on top: shrink the compute until both fit (or only minimums are left).
  for (int cap = pcuCap, round = 0; round < 8; ++round) {
    int used = 0;
    for (size_t i = 0; i < costs.size(); ++i) used += s[i] + treeUnits(costs[i], s[i]).pcus;
    if (used <= pcuCap || cap <= totalMin) break;
    cap = std::max(totalMin, std::min(cap, total) - (used - pcuCap));
    s = shares(cap);
  }
  return s;
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) const {
  return sectionEstimate(g, nodes, 0);
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                                                      int pcuCap) const {
  partition::SectionEstimate e;
  std::set<ir::ValueId> produced, consumedInside;
  for (ir::NodeId id : nodes) {
    for (ir::ValueId o : g.node(id).outputs) produced.insert(o);
    for (ir::ValueId in : g.node(id).inputs) consumedInside.insert(in);
  }
  std::vector<int> shares = pcuShares(g, nodes, pcuCap);
  const double pcuFlopPerUs = m_arch.pcuFlopPerCycle() * m_arch.clockGhz * 1e3;
  std::set<ir::ValueId> external;
  double internalBytes = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = g.node(nodes[i]);
    OpCost c = opCost(g, n);
    TreeUnits trees = treeUnits(c, shares[i]);
    e.flop += c.flop;
    e.pcus += shares[i] + trees.pcus;
    e.pmus += c.pmus - c.treePmus + trees.pmus;
    if (shares[i] > 0) e.computeUs = std::max(e.computeUs, c.flop / (shares[i] * pcuFlopPerUs));
    for (ir::ValueId in : n.inputs)
      if (!produced.count(in)) external.insert(in);
  }
  // Results leave the section unless only used inside it (conservatively: every
  // produced value not consumed inside, plus graph outputs).
  for (ir::ValueId v : produced) {
    double bytes = static_cast<double>(g.value(v).type.byteSize());
    if (!consumedInside.count(v)) external.insert(v);
    else internalBytes += bytes;
  }
  for (ir::ValueId v : external) e.ddrBytes += static_cast<double>(g.value(v).type.byteSize());

  e.computeUs = std::max(e.computeUs, e.flop / (m_arch.peakTflops * 1e12) * 1e6);
  double offChipUs = e.ddrBytes / (m_arch.offChipGbps() * 1e9) * 1e6;
  double linkGbps = m_arch.networkLinkGbps > 0 ? m_arch.networkLinkGbps : 50.0;
  double onChipUs = internalBytes / (linkGbps * 1e9 * std::max(1, e.pcus)) * 1e6;
  e.memoryUs = std::max(offChipUs, onChipUs);
  double chipUs = 0;
  int perChip = std::max(1, m_arch.pcusPerChip());
  int spanned = (e.pcus + perChip - 1) / perChip;
  if (spanned > 1 && m_arch.pcieGbps > 0)
    chipUs = internalBytes * (spanned - 1) / spanned / (m_arch.pcieGbps * 1e9) * 1e6;
  double fillUs = static_cast<double>(nodes.size() * static_cast<size_t>(m_arch.pcuStages)) / (m_arch.clockGhz * 1e3);
  e.latencyUs = std::max(e.computeUs, e.memoryUs) + fillUs + chipUs;
  return e;
}

}  // namespace dfc::arch
