#include "estimate/TensorParallel.h"

#include <algorithm>
#include <set>

namespace dfc::estimate {
namespace {

using ir::OpKind;
using ir::ValueKind;

class Planner {
 public:
  Planner(const ir::Graph& g, int chips) : m_g(g), m_users(g.computeUsers()) {
    for (const ir::StateUpdate& u : g.updates)
      if (g.value(u.target).kind != ValueKind::Param) m_state.insert(u.target);
    m_plan.chips = std::max(1, chips);
    m_plan.nodes.resize(g.nodes.size());
    m_plan.values.resize(g.values.size());
  }

  TensorParallelPlan run() {
    for (const ir::Node& n : m_g.nodes) visit(n);
    gatherShardedOutputs();
    return std::move(m_plan);
  }

 private:
  // Persistent state other than weights (a decode step's KV cache) is split
  // like the activations it is read with; it does not decide the layout.
  bool isState(ir::ValueId v) const { return m_state.count(v) > 0; }
  bool isActivation(ir::ValueId v) const {
    ValueKind k = m_g.value(v).kind;
    return (k == ValueKind::Intermediate || k == ValueKind::Input) && !isState(v);
  }
  bool isWeight(ir::ValueId v) const { return m_g.value(v).kind == ValueKind::Param; }
  ValueSplit& split(ir::ValueId v) { return m_plan.values[static_cast<size_t>(v)]; }
  double bytes(ir::ValueId v) const { return static_cast<double>(m_g.value(v).type.byteSize()); }

  // Chips a column-parallel result splits over: all of them, or the heads it
  // is reshaped into when fewer.
  int columnShare(ir::ValueId out) const {
    int share = m_plan.chips;
    const int64_t cols = m_g.value(out).type.shape.empty() ? 1 : m_g.value(out).type.shape.back();
    for (ir::NodeId u : m_users[static_cast<size_t>(out)]) {
      const ir::Node& user = m_g.node(u);
      if (user.op != OpKind::Reshape) continue;
      const auto& s = m_g.value(user.outputs[0]).type.shape;
      if (s.size() >= 2 && s.back() < cols && s[s.size() - 2] * s.back() == cols) share = std::min<int>(share, static_cast<int>(s[s.size() - 2]));
    }
    while (share > 1 && cols % share != 0) --share;
    return std::max(1, share);
  }

  void weightGemm(const ir::Node& n, NodeSplit& ns) {
    ir::ValueId x = n.inputs[0], out = n.outputs[0];
    const ValueSplit in = split(x);
    if (in.layout == Layout::Replicated) {  // column parallel
      int share = columnShare(out);
      ns.flopShare = share;
      ns.inputShare[1] = share;
      split(out) = {share > 1 ? Layout::ShardedLast : Layout::Replicated, share};
      return;
    }
    ns.flopShare = in.share;  // row parallel: partial sums, made whole
    ns.inputShare[0] = in.share;
    ns.inputShare[1] = in.share;
    ns.collectives.push_back({Collective::Kind::AllReduce, bytes(out)});
    split(out) = {};
  }

  void embedding(const ir::Node& n, NodeSplit& ns) {  // vocabulary parallel
    ns.inputShare[0] = m_plan.chips;
    if (m_plan.chips > 1) ns.collectives.push_back({Collective::Kind::AllReduce, bytes(n.outputs[0])});
    for (ir::ValueId o : n.outputs) split(o) = {};
  }

  static bool reducesLastAxis(OpKind op) {
    return op == OpKind::Softmax || op == OpKind::LayerNorm || op == OpKind::Reduce ||
           op == OpKind::SoftmaxCrossEntropy;
  }

  // Ops that follow their inputs: heads and columns stay where they are, unless
  // the op needs the whole of a sharded operand (then it is all-gathered).
  void follow(const ir::Node& n, NodeSplit& ns) {
    ValueSplit joined;
    int64_t shardedNumel = 0;
    auto floatActivation = [&](ir::ValueId v) {  // token ids and positions are a few integers every chip holds
      return isActivation(v) && m_g.value(v).type.dtype == ir::DType::F32;
    };
    for (ir::ValueId v : n.inputs) {
      if (!floatActivation(v) || split(v).layout == Layout::Replicated) continue;
      shardedNumel = std::max(shardedNumel, m_g.value(v).type.numElements());
      if (split(v).share > joined.share || joined.layout == Layout::Replicated) joined = split(v);
    }
    // A smaller replicated operand is broadcast (rotary tables of the
    // position): every chip holds it whole. One as large as the sharded
    // operand (a residual) needs the sharded one whole.
    bool replicatedActivation = false;
    for (ir::ValueId v : n.inputs)
      if (floatActivation(v) && split(v).layout == Layout::Replicated)
        replicatedActivation |= joined.layout == Layout::Replicated || m_g.value(v).type.numElements() >= shardedNumel;
    const bool gather = joined.layout != Layout::Replicated &&
                        (replicatedActivation || (joined.layout == Layout::ShardedLast && reducesLastAxis(n.op)));
    if (joined.layout == Layout::Replicated || gather) {
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (gather && isActivation(n.inputs[i]) && split(n.inputs[i]).layout != Layout::Replicated)
          ns.collectives.push_back({Collective::Kind::AllGather, bytes(n.inputs[i])});
      for (ir::ValueId o : n.outputs) split(o) = {};
      return;
    }
    ns.flopShare = joined.share;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      ir::ValueId v = n.inputs[i];
      ns.inputShare[i] = isActivation(v) ? std::max(1, split(v).share) : isState(v) ? joined.share : 1;  // norm weights, rotary tables: whole
      if (isState(v)) split(v) = joined;
    }
    for (ir::ValueId o : n.outputs) split(o) = {reshapedLayout(n, joined), joined.share};
  }

  // A reshape that splits the last axis into heads moves the split off the
  // last axis; one that merges heads back into it moves it onto the last axis.
  Layout reshapedLayout(const ir::Node& n, const ValueSplit& in) const {
    if (n.op != OpKind::Reshape) return in.layout;
    const auto& a = m_g.value(n.inputs[0]).type.shape;
    const auto& b = m_g.value(n.outputs[0]).type.shape;
    if (a.empty() || b.empty() || a.back() == b.back()) return in.layout;
    return b.back() < a.back() ? Layout::ShardedOther : Layout::ShardedLast;
  }

  void visit(const ir::Node& n) {
    NodeSplit& ns = m_plan.nodes[static_cast<size_t>(n.id)];
    ns.inputShare.assign(n.inputs.size(), 1);
    if (m_plan.chips <= 1) return;
    const bool gemm = n.op == OpKind::MatMul && n.inputs.size() >= 2 && isWeight(n.inputs[1]) && !n.intAttr("trans_a");
    if (gemm) return weightGemm(n, ns);
    if (n.op == OpKind::Embedding && !n.inputs.empty() && isWeight(n.inputs[0])) return embedding(n, ns);
    follow(n, ns);
  }

  void gatherShardedOutputs() {
    for (ir::ValueId v : m_g.outputs) {
      if (split(v).layout == Layout::Replicated) continue;
      ir::NodeId p = m_g.value(v).producer;
      if (p == ir::kNoNode) continue;
      m_plan.nodes[static_cast<size_t>(p)].collectives.push_back({Collective::Kind::AllGather, bytes(v)});
    }
  }

  const ir::Graph& m_g;
  std::vector<std::vector<ir::NodeId>> m_users;
  std::set<ir::ValueId> m_state;
  TensorParallelPlan m_plan;
};

}  // namespace

TensorParallelPlan planTensorParallel(const ir::Graph& graph, int chips) { return Planner(graph, chips).run(); }

}  // namespace dfc::estimate
