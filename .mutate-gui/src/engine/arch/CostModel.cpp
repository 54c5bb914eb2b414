#include "arch/CostModel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "arch/AttentionCost.h"
#include "arch/FanIn.h"
#include "ir/KvCache.h"

namespace dfc::arch {
namespace {

struct GemmDims {
  double batch = 1, m = 1, n = 1, k = 1;
};

double numelOf(const ir::Graph& g, ir::ValueId v) { return static_cast<double>(g.value(v).type.numElements()); }

// GEMM-equivalent dimensions; convolutions as their im2col GEMM. The chip is
// charged the direct convolution even where the host runs Winograd
// (runtime/ConvAlgo.h): its PCUs compute in bf16, where F(4x4)'s ten-fold
// error growth over F(2x2) (measured in f32 by bench_winograd) would cost
// about two of bf16's eight mantissa bits, and a conv section on the modelled
// chip is bound by its weights' and activations' PMU/DDR traffic as often as
// by its multiplies; the host's choice is a host-CPU matter.
double dimFromEnd(const std::vector<int64_t>& s, size_t fromEnd) {
  return s.size() >= fromEnd ? static_cast<double>(s[s.size() - fromEnd]) : 1.0;
}

GemmDims matmulDims(const ir::Graph& g, const ir::Node& n) {
  GemmDims d;
  const auto& out = g.value(n.outputs[0]).type.shape;
  const auto& a = g.value(n.inputs[0]).type.shape;
  d.m = dimFromEnd(out, 2);
  d.n = dimFromEnd(out, 1);
  d.k = n.intAttr("trans_a") ? dimFromEnd(a, 2) : dimFromEnd(a, 1);
  d.batch = std::max(1.0, numelOf(g, n.outputs[0]) / std::max(1.0, d.m * d.n));
  return d;
}

// y[N,Co,Ho,Wo] = im2col(x)[N*Ho*Wo, Ci*kh*kw] @ w^T, and dx[N,Ci,H,W] = dy patches @ w:
// the output's N*H*W rows, its channels as columns, the weight's other channel axis times kh*kw deep.
GemmDims imageDims(const ir::Graph& g, const ir::Node& n, size_t weightDepthAxis) {
  GemmDims d;
  const auto& out = g.value(n.outputs[0]).type.shape;
  const auto& w = g.value(n.inputs[1]).type.shape;
  d.m = dimFromEnd(out, 4) * dimFromEnd(out, 2) * dimFromEnd(out, 1);
  d.n = dimFromEnd(out, 3);
  d.k = static_cast<double>(w[weightDepthAxis] * w[2] * w[3]);
  return d;
}
GemmDims conv2dDims(const ir::Graph& g, const ir::Node& n) { return imageDims(g, n, 1); }
GemmDims conv2dGradInputDims(const ir::Graph& g, const ir::Node& n) { return imageDims(g, n, 0); }

GemmDims conv2dGradWeightDims(const ir::Graph& g, const ir::Node& n) {  // dw[Co, Ci*kh*kw] = dy^T @ im2col(x)
  GemmDims d;
  const auto& out = g.value(n.outputs[0]).type.shape;
  const auto& dy = g.value(n.inputs[0]).type.shape;
  d.m = dimFromEnd(out, 4);
  d.n = numelOf(g, n.outputs[0]) / std::max(1.0, d.m);
  d.k = dimFromEnd(dy, 4) * dimFromEnd(dy, 2) * dimFromEnd(dy, 1);
  return d;
}

// decode_attention: scores q @ K^T and the weighted sum @ V, each a GEMM per
// (batch, head) of T query rows over the cache's N rows and Dh columns: the
// static N, as a step reads its cache up to its length.
GemmDims decodeAttentionDims(const ir::Graph& g, const ir::Node& n) {
  const auto& q = g.value(n.inputs[0]).type.shape;
  const auto& cache = g.value(n.inputs[1]).type.shape;
  GemmDims d;
  d.batch = 2.0 * dimFromEnd(q, 4) * dimFromEnd(q, 3);
  d.m = dimFromEnd(q, 2);
  d.n = dimFromEnd(cache, 2);
  d.k = dimFromEnd(q, 1);
  return d;
}

// What the cost model knows of each op. Gemm ops give their GEMM dimensions;
// elementwise ops the pipeline stages of one stage group (the arithmetic steps
// per element); layout ops move data only.
struct OpFacts {
  OpClass cls = OpClass::Elementwise;
  int stages = 2;
  GemmDims (*gemm)(const ir::Graph&, const ir::Node&) = nullptr;
  // A row lookup (embedding, gather): its table (input 0) stays in HBM/DDR and
  // only the rows it reads are streamed; its work is its output's.
  bool lookup = false;
};

constexpr OpFacts elementwise(int stages) { return {OpClass::Elementwise, stages, nullptr}; }
constexpr OpFacts lookup(int stages) { return {OpClass::Elementwise, stages, nullptr, true}; }
constexpr OpFacts gemm(GemmDims (*dims)(const ir::Graph&, const ir::Node&)) { return {OpClass::Gemm, 0, dims}; }
constexpr OpFacts kLayout{OpClass::Layout, 0, nullptr};

// One entry per op, by the family column of Ops.def: the table below names
// <Family>Costs::<Op>, so an op added there without its figures here does not compile.
struct ElementwiseCosts {
  static constexpr OpFacts Add = elementwise(1), Sub = elementwise(1), Mul = elementwise(1), Scale = elementwise(1),
                           BiasAdd = elementwise(1), Relu = elementwise(1), ReluGrad = elementwise(1);
};
struct LinalgCosts {
  static constexpr OpFacts MatMul = gemm(matmulDims), BatchMatMul = gemm(matmulDims);
  static constexpr OpFacts Linear = elementwise(2);  // a composite, decomposed before the cost model sees it
};
struct ConvCosts {
  static constexpr OpFacts Conv2d = gemm(conv2dDims), Conv2dGradInput = gemm(conv2dGradInputDims),
                           Conv2dGradWeight = gemm(conv2dGradWeightDims);
};
struct PoolCosts {
  static constexpr OpFacts MaxPool2d = elementwise(2), MaxPool2dGrad = elementwise(2), GlobalAvgPool = elementwise(2),
                           GlobalAvgPoolGrad = elementwise(2);
};
struct NormCosts {
  static constexpr OpFacts BatchNorm = elementwise(2), BatchNormGrad = elementwise(2), LayerNorm = elementwise(6),
                           LayerNormGrad = elementwise(10);
};
struct LayoutCosts {
  static constexpr OpFacts Reshape = kLayout, Transpose = kLayout, Slice = kLayout, SliceGrad = kLayout;
  static constexpr OpFacts ReduceSum = elementwise(1);
};
struct TransformerCosts {
  static constexpr OpFacts SoftmaxGrad = elementwise(4), Gelu = elementwise(6), GeluGrad = elementwise(8),
                           CausalMask = elementwise(1), Embedding = lookup(1), EmbeddingGrad = elementwise(2);
};
struct LossCosts {
  static constexpr OpFacts Softmax = elementwise(4), SoftmaxCrossEntropy = elementwise(6),
                           SoftmaxCrossEntropyGrad = elementwise(5);
};
struct OptimizerCosts {
  static constexpr OpFacts SgdUpdate = elementwise(2), AdamUpdate = elementwise(2), MomentumUpdate = elementwise(4);
};
struct GeneralCosts {  // two stages each until the general ops get measured figures
  static constexpr OpFacts Unary = elementwise(2), Binary = elementwise(2), Where = elementwise(2), Cast = elementwise(2),
                           Reduce = elementwise(2), Expand = elementwise(2), Concat = elementwise(2),
                           Gather = lookup(2), StridedSlice = elementwise(2), Conv = elementwise(2),
                           Pool = elementwise(2);
  // No chip compute: the link time is arch/CollectiveModel's, set on the reduce sections.
  static constexpr OpFacts AllReduce = kLayout;
};
struct DecodeCosts {
  static constexpr OpFacts KvCacheWrite = kLayout;  // a PMU write of the new rows, in place
  static constexpr OpFacts DecodeAttention = gemm(decodeAttentionDims);
};

constexpr OpFacts kFacts[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) family##Costs::Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

const OpFacts& factsOf(ir::OpKind op) { return kFacts[static_cast<size_t>(op)]; }

// What a lookup reads of its table: the rows it returns.
double lookupBytes(const ir::Graph& g, const ir::Node& n) {
  double rows = 0;
  for (ir::ValueId o : n.outputs) rows += static_cast<double>(g.value(o).type.byteSize());
  return std::min(rows, static_cast<double>(g.value(n.inputs[0]).type.byteSize()));
}

double flopOf(const ir::Graph& g, const ir::Node& n) {
  const OpFacts& f = factsOf(n.op);
  if (f.cls == OpClass::Gemm) {
    GemmDims d = f.gemm(g, n);
    return 2.0 * d.batch * d.m * d.n * d.k;
  }
  if (f.cls == OpClass::Layout) return 0;
  double total = 0;
  for (ir::ValueId o : n.outputs) total += numelOf(g, o);
  double in = n.inputs.empty() || f.lookup ? 0 : numelOf(g, n.inputs[0]);  // a lookup works on the rows it returns
  return std::max(total, in) * f.stages;
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

bool CostModel::gemmShape(const ir::Graph& g, const ir::Node& n, GemmShape& out) const {
  const OpFacts& f = factsOf(n.op);
  if (f.cls != OpClass::Gemm) return false;
  GemmDims d = f.gemm(g, n);
  out = {d.batch, d.m, d.n, d.k};
  return true;
}

// A share of the chips' PCUs, and never more than one chip: an operator's
// units are placed and routed on one chip's mesh (chips are joined by links).
int CostModel::maxOpPcus() const {
  return std::max(1, std::min(m_arch.pcusPerChip(), m_arch.pcusPerChip() * m_arch.chips / m_constants.maxOpShare));
}

OpCost CostModel::opCost(const ir::Graph& g, const ir::Node& n, int passes) const {
  OpCost c;
  c.flop = flopOf(g, n);
  for (ir::ValueId v : n.inputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  for (ir::ValueId v : n.outputs) c.bytes += static_cast<double>(g.value(v).type.byteSize());
  if (n.op == ir::OpKind::KvCacheWrite)  // in place: reads the new rows and the position, writes the rows
    c.bytes = 2 * ir::boundaryBytes(g, n.outputs[0]) + static_cast<double>(g.value(n.inputs[2]).type.byteSize());
  const double lanes = m_arch.pcuLanes;
  const int maxPcus = maxOpPcus();
  // Tiled (passes > 1): one pass holds 1/passes of each resident tensor.
  const double tileShare = 1.0 / std::max(1, passes);
  auto residentPmus = [&](ir::ValueId v) {
    double bytes = std::ceil(static_cast<double>(g.value(v).type.byteSize()) * tileShare);
    return std::max(1, static_cast<int>(std::ceil(bytes / m_arch.pmuBytes)));
  };
  c.inputResident.assign(n.inputs.size(), false);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    c.inputResident[i] = g.value(n.inputs[i]).kind == ir::ValueKind::Param;

  const OpFacts& facts = factsOf(n.op);
  if (facts.lookup && !n.inputs.empty()) {  // the table is read row by row from off-chip memory
    c.inputResident[0] = false;
    c.bytes += lookupBytes(g, n) - static_cast<double>(g.value(n.inputs[0]).type.byteSize());
  }
  if (facts.cls == OpClass::Gemm) {
    c.cls = OpClass::Gemm;
    GemmDims d = facts.gemm(g, n);
    double tiles = d.batch * std::ceil(d.m / lanes) * std::ceil(d.n / lanes);
    double wanted = std::ceil(c.flop / (m_arch.pcuFlopPerCycle() * m_constants.targetCycles));
    c.pcus = static_cast<int>(std::clamp(wanted, 1.0, std::max(1.0, std::min<double>(tiles, maxPcus))));
    c.minPcus = 1;
    c.stages = m_arch.pcuStages;
    if (n.inputs.size() > 1 && n.op != ir::OpKind::Conv2dGradWeight) c.inputResident[1] = true;  // reused operand
  } else if (facts.cls == OpClass::Layout) {
    c.cls = OpClass::Layout;
    c.pcus = c.minPcus = 0;
  } else {
    c.cls = OpClass::Elementwise;
    c.stages = facts.stages;
    int groupPcus = (c.stages + m_arch.pcuStages - 1) / m_arch.pcuStages;
    double numel = n.inputs.empty() || facts.lookup ? 1 : numelOf(g, n.inputs[0]);
    for (ir::ValueId o : n.outputs) numel = std::max(numel, numelOf(g, o));
    double groups = std::ceil(numel / (lanes * m_constants.targetCycles));
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

namespace {

// PCUs per unit under `pcuCap` (0: none), leaving room for the combine trees' PCUs.
std::vector<int> sharesFor(const CostModel& model, const std::vector<OpCost>& costs, int pcuCap) {
  int total = 0, totalMin = 0;
  for (const OpCost& c : costs) {
    total += c.pcus;
    totalMin += c.minPcus;
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
    for (size_t i = 0; i < costs.size(); ++i) used += s[i] + model.treeUnits(costs[i], s[i]).pcus;
    if (used <= pcuCap || cap <= totalMin) break;
    cap = std::max(totalMin, std::min(cap, total) - (used - pcuCap));
    s = shares(cap);
  }
  return s;
}

// Values the section reads only as lookup tables: the rows it reads of each,
// which is all of it the section moves.
std::map<ir::ValueId, double> lookupTables(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  std::map<ir::ValueId, double> rows;
  std::set<ir::ValueId> other;  // read some other way too
  for (ir::NodeId id : nodes) {
    const ir::Node& n = g.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (i == 0 && factsOf(n.op).lookup) rows[n.inputs[0]] += lookupBytes(g, n);
      else other.insert(n.inputs[i]);
    }
  }
  for (ir::ValueId v : other) rows.erase(v);
  return rows;
}

}  // namespace

std::vector<int> CostModel::pcuShares(const ir::Graph& g, const std::vector<ir::NodeId>& nodes, int pcuCap) const {
  std::vector<OpCost> costs;
  for (ir::NodeId id : nodes) costs.push_back(opCost(g, g.node(id)));
  return sharesFor(*this, costs, pcuCap);
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) const {
  return sectionEstimate(g, nodes, 0);
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                                                      int pcuCap) const {
  return sectionEstimate(g, nodes, pcuCap, g.computeUsers());
}

partition::SectionEstimate CostModel::sectionEstimate(const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                                                      int pcuCap, const std::vector<std::vector<ir::NodeId>>& users) const {
  partition::SectionEstimate e;
  std::set<ir::ValueId> produced, consumedInside;
  for (ir::NodeId id : nodes) {
    for (ir::ValueId o : g.node(id).outputs) produced.insert(o);
    for (ir::ValueId in : g.node(id).inputs) consumedInside.insert(in);
  }
  std::vector<ir::NodeId> inside = nodes;
  std::sort(inside.begin(), inside.end());
  std::set<ir::ValueId> leavesStep(g.outputs.begin(), g.outputs.end());
  for (const ir::StateUpdate& u : g.updates) leavesStep.insert(u.newValue);
  // Read after the section: by a node outside it, as a graph output or as a state update.
  auto readOutside = [&](ir::ValueId v) {
    if (leavesStep.count(v)) return true;
    for (ir::NodeId u : users[static_cast<size_t>(v)])
      if (!std::binary_search(inside.begin(), inside.end(), u)) return true;
    return false;
  };
  // Units: the ops one by one, except attention chains held whole, charged in their tiled form.
  const std::vector<TiledAttention> tiled = tiledAttention(*this, g, nodes, users);
  std::set<ir::NodeId> inTiled;
  std::vector<OpCost> costs;
  for (const TiledAttention& t : tiled) {
    inTiled.insert(t.nodes.begin(), t.nodes.end());
    costs.push_back(t.cost);
  }
  for (ir::NodeId id : nodes)
    if (!inTiled.count(id)) costs.push_back(opCost(g, g.node(id)));
  std::vector<int> shares = sharesFor(*this, costs, pcuCap);
  const double pcuFlopPerUs = m_arch.pcuFlopPerCycle() * m_arch.clockGhz * 1e3;
  std::set<ir::ValueId> external;
  double internalBytes = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    const OpCost& c = costs[i];
    TreeUnits trees = treeUnits(c, shares[i]);
    e.flop += c.flop;
    e.pcus += shares[i] + trees.pcus;
    e.pmus += c.pmus - c.treePmus + trees.pmus;
    if (shares[i] > 0) e.computeUs = std::max(e.computeUs, c.flop / (shares[i] * pcuFlopPerUs));
  }
  for (ir::NodeId id : nodes)
    for (ir::ValueId in : g.node(id).inputs)
      if (!produced.count(in)) external.insert(in);
  // A result read inside passes over the on-chip network; one read after the
  // section is written out (both, when read in both places). The runtime counts
  // the same boundary bytes for a section call.
  for (ir::ValueId v : produced) {
    if (consumedInside.count(v)) internalBytes += static_cast<double>(g.value(v).type.byteSize());
    if (readOutside(v)) external.insert(v);
  }
  for (const TiledAttention& t : tiled) {  // scores never stored; o, the statistics and the re-streamed blocks are
    for (ir::ValueId v : t.neverStored) external.erase(v);
    for (ir::ValueId v : t.extraReads)
      if (!produced.count(v)) external.insert(v);
    e.ddrBytes += t.statsBytes + t.restreamBytes;
  }
  const std::map<ir::ValueId, double> tables = lookupTables(g, nodes);
  for (ir::ValueId v : external) {
    auto table = tables.find(v);
    e.ddrBytes += table != tables.end() ? table->second : ir::boundaryBytes(g, v);
  }

  e.computeUs = std::max(e.computeUs, e.flop / (m_arch.peakTflops * 1e12) * 1e6);
  double offChipUs = e.ddrBytes / (m_arch.offChipGbps() * 1e9) * 1e6;
  double onChipUs = internalBytes / (linkGbps() * 1e9 * std::max(1, e.pcus)) * 1e6;
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
