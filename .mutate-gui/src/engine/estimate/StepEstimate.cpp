#include "estimate/StepEstimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "arch/CollectiveModel.h"
#include "arch/CostModel.h"
#include "ir/KvCache.h"
#include "estimate/MemoryTiers.h"
#include "estimate/TensorParallel.h"

namespace dfc::estimate {

const char* fusionName(Fusion f) {
  switch (f) {
    case Fusion::Block: return "block";
    case Fusion::Layer: return "layer";
    case Fusion::Section: return "section";
  }
  return "block";
}

std::optional<Fusion> fusionFromName(std::string_view name) {
  for (Fusion f : {Fusion::Block, Fusion::Layer, Fusion::Section})
    if (name == fusionName(f)) return f;
  return std::nullopt;
}

const char* tierName(Tier t) { return t == Tier::Sram ? "SRAM" : t == Tier::Hbm ? "HBM" : "DDR"; }

namespace {

constexpr double kTreeChunkBytes = 256.0 * 1024;  // the runtime's tree allreduce chunk
constexpr int kHbm = static_cast<int>(Tier::Hbm), kDdr = static_cast<int>(Tier::Ddr);

// A KV cache read by one attention GEMM of a one-token graph (EstimateOptions::kvCacheLen).
struct KvRead {
  double bytes = 0;  // whole cache of this GEMM's keys or values, chip dtype
  int share = 1;     // chips splitting it (its KV heads)
  Tier tier = Tier::Hbm;
};

class Estimator {
 public:
  Estimator(const ir::Graph& g, const partition::Plan& plan, const arch::ArchSpec& arch, const EstimateOptions& o)
      : m_g(g), m_plan(plan), m_arch(arch), m_opt(o), m_tp(planTensorParallel(g, o.chips)), m_cost(arch),
        m_tiers(arch), m_links(arch::chipLinks(arch)), m_users(g.computeUsers()) {
    for (const ir::StateUpdate& u : g.updates) m_state.insert(u.target);
    m_tiers.reserveHbm(o.reservedHbmBytes);
  }

  Expected<StepEstimate> run();

 private:
  double chipBytes(ir::ValueId v) const {
    const ir::TensorType& t = m_g.value(v).type;
    double scale = t.dtype == ir::DType::F32 ? m_opt.elementBytes / 4.0 : 1.0;
    return static_cast<double>(t.byteSize()) * scale;
  }
  // Weights, constants and persistent state (a KV cache) live in HBM or DDR across steps.
  bool resident(ir::ValueId v) const {
    ir::ValueKind k = m_g.value(v).kind;
    return k == ir::ValueKind::Param || k == ir::ValueKind::Const || m_state.count(v) > 0;
  }
  double tokens() const { return static_cast<double>(m_opt.tokensPerStep); }
  Status findKvReads();
  Status placeResidents();
  SectionCost sectionCost(const partition::Section& s) const;
  void addNode(const ir::Node& n, SectionCost& c) const;
  void addBoundary(const partition::Section& s, SectionCost& c) const;
  void collectiveCost(const Collective& k, SectionCost& c) const;
  void assemble(StepEstimate& e) const;

  const ir::Graph& m_g;
  const partition::Plan& m_plan;
  const arch::ArchSpec& m_arch;
  const EstimateOptions& m_opt;
  TensorParallelPlan m_tp;
  arch::CostModel m_cost;
  MemoryTiers m_tiers;
  arch::AllreduceLinks m_links;
  std::vector<std::vector<ir::NodeId>> m_users;
  std::set<ir::ValueId> m_state;
  std::map<ir::ValueId, Tier> m_residentTier;
  std::map<ir::NodeId, KvRead> m_kv;
};

// Keys and values before the grouped-query repeat: back through reshapes,
// expands and transposes to the smallest tensor (the cache holds KV heads only).
ir::ValueId beforeRepeat(const ir::Graph& g, ir::ValueId v) {
  ir::ValueId best = v;
  for (ir::ValueId cur = v; g.value(cur).producer != ir::kNoNode;) {
    const ir::Node& p = g.node(g.value(cur).producer);
    if (p.op != ir::OpKind::Reshape && p.op != ir::OpKind::Expand && p.op != ir::OpKind::Transpose) break;
    cur = p.inputs[0];
    if (g.value(cur).type.numElements() < g.value(best).type.numElements()) best = cur;
  }
  return best;
}

Status Estimator::findKvReads() {
  if (m_opt.kvCacheLen <= 0) return {};
  for (const ir::Node& n : m_g.nodes) {
    if (n.op != ir::OpKind::BatchMatMul || n.inputs.size() < 2 || resident(n.inputs[1])) continue;
    const auto& kv = m_g.value(n.inputs[1]).type.shape;
    if (kv.size() < 2 || kv[kv.size() - 2] != 1)
      return makeError("--kv-cache-len: the PEF is not a one-token step (attention '" + n.name + "' reads " +
                       std::to_string(kv.size() < 2 ? 0 : kv[kv.size() - 2]) +
                       " positions); compile it with --inference --seq-len 1");
    ir::ValueId cache = beforeRepeat(m_g, n.inputs[1]);
    KvRead r;
    r.bytes = chipBytes(cache) * static_cast<double>(m_opt.kvCacheLen);
    r.share = std::max(1, m_tp.values[static_cast<size_t>(cache)].share);
    m_kv[n.id] = r;
  }
  if (m_kv.empty()) return makeError("--kv-cache-len: the PEF has no attention (batch_matmul) to read a KV cache");
  return {};
}

// First come, first served in schedule order: what the step reads first is in HBM.
Status Estimator::placeResidents() {
  for (int id : m_plan.schedule) {
    for (ir::NodeId nid : m_plan.sections.at(static_cast<size_t>(id)).nodes) {
      const ir::Node& n = m_g.node(nid);
      const NodeSplit& ns = m_tp.nodes[static_cast<size_t>(nid)];
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        ir::ValueId v = n.inputs[i];
        if (!resident(v) || m_residentTier.count(v)) continue;
        auto tier = m_tiers.place(m_g.value(v).name, chipBytes(v) / ns.inputShare[i]);
        if (!tier) return tier.error();
        m_residentTier[v] = *tier;
      }
      if (auto it = m_kv.find(nid); it != m_kv.end()) {
        auto tier = m_tiers.place("KV cache of " + n.name, it->second.bytes / it->second.share);
        if (!tier) return tier.error();
        it->second.tier = *tier;
      }
    }
  }
  return {};
}

void Estimator::collectiveCost(const Collective& k, SectionCost& c) const {
  const int p = m_tp.chips;
  const double bytes = k.bytes * m_opt.elementBytes / 4.0 * tokens();  // activations are f32 on the host
  if (k.kind == Collective::Kind::AllReduce) {
    c.commUs += arch::estimateAllreduceUs("mpi", bytes, p, p, m_links, kTreeChunkBytes);
    c.linkBytes += 2.0 * (p - 1) / p * bytes;
  } else {
    c.commUs += arch::estimateAllgatherUs(bytes, p, m_links);
    c.linkBytes += static_cast<double>(p - 1) / p * bytes;
  }
}

void Estimator::addNode(const ir::Node& n, SectionCost& c) const {
  const NodeSplit& ns = m_tp.nodes[static_cast<size_t>(n.id)];
  // A lookup does no arithmetic on its table (the cost model counts the table's elements).
  double flop = n.op == ir::OpKind::Embedding ? 0 : m_cost.opCost(m_g, n).flop;
  if (auto it = m_kv.find(n.id); it != m_kv.end()) {
    flop *= static_cast<double>(m_opt.kvCacheLen);  // one query against every cached position
    c.tierBytes[static_cast<int>(it->second.tier)] += it->second.bytes / it->second.share;
  }
  c.flop += flop * tokens() / ns.flopShare;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    auto it = m_residentTier.find(n.inputs[i]);
    if (it == m_residentTier.end()) continue;
    double bytes = chipBytes(n.inputs[i]) / ns.inputShare[i];
    if (n.op == ir::OpKind::Embedding && i == 0)  // a lookup reads its rows, not the table
      bytes = std::min(bytes, chipBytes(n.outputs[0]) * tokens());
    c.tierBytes[static_cast<int>(it->second)] += bytes;
  }
  for (const Collective& k : ns.collectives) collectiveCost(k, c);
}

// Activations read from outside the section, and results read after it.
void Estimator::addBoundary(const partition::Section& s, SectionCost& c) const {
  std::set<ir::ValueId> produced, external;
  std::vector<ir::NodeId> inside = s.nodes;
  std::sort(inside.begin(), inside.end());
  for (ir::NodeId id : s.nodes)
    for (ir::ValueId o : m_g.node(id).outputs) produced.insert(o);
  for (ir::NodeId id : s.nodes)
    for (ir::ValueId v : m_g.node(id).inputs)
      if (!produced.count(v) && !resident(v)) external.insert(v);
  std::set<ir::ValueId> leaves(m_g.outputs.begin(), m_g.outputs.end());
  for (ir::ValueId v : produced) {
    bool outside = leaves.count(v) > 0;
    for (ir::NodeId u : m_users[static_cast<size_t>(v)]) outside |= !std::binary_search(inside.begin(), inside.end(), u);
    if (outside) external.insert(v);
  }
  for (ir::ValueId v : external) {  // a KV cache write leaving the section moves the rows written
    const double scale = chipBytes(v) / std::max(1.0, static_cast<double>(m_g.value(v).type.byteSize()));
    c.tierBytes[static_cast<int>(m_tiers.activationTier())] +=
        ir::boundaryBytes(m_g, v) * scale * tokens() / std::max(1, m_tp.values[static_cast<size_t>(v)].share);
  }
}

SectionCost Estimator::sectionCost(const partition::Section& s) const {
  SectionCost c;
  c.section = s.id;
  c.name = s.name;
  c.layer = s.hyperfunction.substr(0, s.hyperfunction.find('/'));
  for (ir::NodeId id : s.nodes) addNode(m_g.node(id), c);
  addBoundary(s, c);
  c.computeUs = c.flop / (m_arch.peakTflops * 1e6);
  for (Tier t : {Tier::Hbm, Tier::Ddr}) {
    const int i = static_cast<int>(t);
    if (c.tierBytes[i] > 0) c.tierUs[i] = c.tierBytes[i] / (m_tiers.gbps(t) * 1e3);
    c.memoryUs = std::max(c.memoryUs, c.tierUs[i]);
  }
  c.fillUs = static_cast<double>(s.nodes.size()) * m_arch.pcuStages / (m_arch.clockGhz * 1e3);
  c.callUs = m_opt.sectionCallUs + std::max(c.computeUs, c.memoryUs) + c.commUs + c.fillUs;
  return c;
}

// One call of consecutive sections as a two-resource pipeline: the memory
// stream (one section ahead) and the chain of compute and collectives. A
// section computes as its weights stream in and cannot finish before they
// have; its collectives follow its compute.
double pipelineUs(const SectionCost* first, const SectionCost* last) {
  double memDone = 0, chainDone = 0, prevStart = 0;
  for (const SectionCost* c = first; c != last; ++c) {
    const double memStart = std::max(memDone, prevStart);
    memDone = memStart + c->memoryUs;
    const double start = std::max(chainDone, memStart);
    chainDone = std::max(start + c->computeUs + c->fillUs, memDone) + c->commUs;
    prevStart = start;
  }
  return chainDone;
}

// The step from its calls: one pipelined call (block), one pipelined call
// per layer drained between calls (layer), or a call per section.
void Estimator::assemble(StepEstimate& e) const {
  const auto& cs = e.sections;
  for (const SectionCost& c : cs) {
    e.computeUs += c.computeUs + c.fillUs;
    e.memoryUs += c.memoryUs;
    e.commUs += c.commUs;
    for (int t : {kHbm, kDdr}) e.tierUs[t] += c.tierUs[t];
  }
  if (e.fusion == Fusion::Section) {
    e.calls = static_cast<int>(cs.size());
    for (const SectionCost& c : cs) e.stepUs += c.callUs;
  } else {
    for (size_t i = 0; i < cs.size();) {
      size_t j = i + 1;  // a layer's call: its consecutive sections; a top-level section is a call of its own
      if (e.fusion == Fusion::Block) j = cs.size();
      else
        while (j < cs.size() && !cs[i].layer.empty() && cs[j].layer == cs[i].layer) ++j;
      e.stepUs += m_opt.sectionCallUs + pipelineUs(cs.data() + i, cs.data() + j);
      ++e.calls;
      i = j;
    }
  }
  e.overheadUs = m_opt.sectionCallUs * e.calls;
  std::pair<double, std::string> parts[] = {{e.computeUs, "compute"},
                                            {e.tierUs[kHbm], "memory (HBM)"},
                                            {e.tierUs[kDdr], "memory (DDR)"},
                                            {e.commUs, "communication"},
                                            {e.overheadUs, "call overhead"}};
  e.bound = std::max_element(std::begin(parts), std::end(parts))->second;
}

Expected<StepEstimate> Estimator::run() {
  DFC_TRY(findKvReads());
  DFC_TRY(placeResidents());
  StepEstimate e;
  e.chips = m_tp.chips;
  e.tokensPerStep = m_opt.tokensPerStep;
  e.fusion = m_opt.fusion;
  for (int id : m_plan.schedule) e.sections.push_back(sectionCost(m_plan.sections.at(static_cast<size_t>(id))));
  assemble(e);
  double flop = 0, link = 0, bytes[3] = {0, 0, 0};
  for (const SectionCost& c : e.sections) {
    flop += c.flop;
    link += c.linkBytes;
    for (int t : {kHbm, kDdr}) bytes[t] += c.tierBytes[t];
  }
  e.peakTflops = m_arch.peakTflops;
  e.linkGbps = m_links.gbps;
  const double stepS = e.stepUs * 1e-6;
  e.flopShare = stepS > 0 ? flop / (e.peakTflops * 1e12 * stepS) : 0;
  e.linkShare = stepS > 0 && e.linkGbps > 0 ? link / (e.linkGbps * 1e9 * stepS) : 0;
  for (Tier t : {Tier::Sram, Tier::Hbm, Tier::Ddr}) {
    const int i = static_cast<int>(t);
    e.tierGbps[i] = m_tiers.peakGbps(t);  // shares against the pin rate: at most the tier's efficiency
    e.tierCapacity[i] = m_tiers.capacity(t);
    e.residentBytes[i] = m_tiers.used(t);
    if (e.tierGbps[i] > 0 && stepS > 0) e.tierShare[i] = bytes[i] / (e.tierGbps[i] * 1e9 * stepS);
  }
  return e;
}

}  // namespace

Expected<StepEstimate> estimateStep(const ir::Graph& graph, const partition::Plan& plan, bool inference,
                                    int64_t batch, const arch::ArchSpec& arch, const EstimateOptions& options) {
  if (options.chips < 1 || options.chips > (inference ? arch::kMaxInferenceChips : 1))
    return makeError("--n-chips " + std::to_string(options.chips) +
                     (inference ? ": must be 1..16 for an inference PEF"
                                : ": the estimate splits inference PEFs only; a training PEF is estimated on 1 chip"));
  if (!inference && options.kvCacheLen > 0) return makeError("--kv-cache-len: needs an inference PEF");
  if (options.decode && options.kvCacheLen > 0)
    return makeError("--kv-cache-len: the PEF is a decode step with its own KV cache (compiled with --decode)");
  if (!(options.elementBytes > 0 && options.elementBytes <= 8))
    return makeError("--element-bytes: must be in (0, 8]");
  if (options.tokensPerStep < 1 || options.tokensPerStep > kMaxTokensPerStep)
    return makeError("tokens per step " + std::to_string(options.tokensPerStep) + ": must be 1.." +
                     std::to_string(kMaxTokensPerStep));
  if (options.tokensPerStep > 1 && !options.decode && options.kvCacheLen <= 0)
    return makeError("speculative decoding: the PEF is not a decode step (compile it with --inference --decode)");
  if (!(options.reservedHbmBytes >= 0 && std::isfinite(options.reservedHbmBytes)))
    return makeError("estimate: reserved HBM bytes must be finite and >= 0");
  auto e = Estimator(graph, plan, arch, options).run();
  if (!e) return e.error();
  e->batch = std::max<int64_t>(1, batch);
  e->arch = arch.name;
  e->elementBytes = options.elementBytes;
  e->kvCacheLen = options.kvCacheLen;
  e->kind = !inference ? "training" : options.kvCacheLen > 0 || options.decode ? "decode" : "inference";
  e->unit = e->kind == "decode" ? "tokens/s" : "samples/s";
  e->throughput = e->stepUs > 0 ? static_cast<double>(e->batch * options.tokensPerStep) / (e->stepUs * 1e-6) : 0;
  return e;
}

}  // namespace dfc::estimate
