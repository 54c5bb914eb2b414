// Fused attention (runtime/AttentionFusion.h, kernels/FlashAttention.h): the
// attention chains autograd emits, run fused and op by op on random inputs,
// causal and not, sequence lengths that are not multiples of the tile, several
// head sizes; forward output and all three gradients must agree.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>

#include "AttentionTestUtil.h"
#include "RuntimeTestUtil.h"
#include "runtime/ArenaPlan.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

struct AttentionCase {
  int64_t matrices = 2, queries = 0, keys = 0, dim = 0;
  bool causal = false;
  bool training = true;
};

ir::Attributes bmmAttrs(bool ta, bool tb) { return {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}; }

// q, k, v (and dO) as inputs; the forward chain of TransformerBlocks' attend()
// in one forward section, the chain autograd emits for it in one backward section.
struct AttentionGraph {
  ir::Graph g;
  partition::Plan plan;
  std::vector<ValueId> inputs;
};

AttentionGraph buildAttention(const AttentionCase& c) {
  AttentionGraph a;
  ir::Graph& g = a.g;
  const ir::Shape qs{c.matrices / 2, 2, c.queries, c.dim}, ks{c.matrices / 2, 2, c.keys, c.dim};
  const ValueId q = g.addValue("q", {ir::DType::F32, qs}, ir::ValueKind::Input);
  const ValueId k = g.addValue("k", {ir::DType::F32, ks}, ir::ValueKind::Input);
  const ValueId v = g.addValue("v", {ir::DType::F32, ks}, ir::ValueKind::Input);
  a.inputs = {q, k, v};
  g.inputs = a.inputs;
  const double alpha = 1.0 / std::sqrt(static_cast<double>(c.dim));
  ValueId s = addOp(g, OpKind::BatchMatMul, "qk", {q, k}, bmmAttrs(false, true));
  s = addOp(g, OpKind::Scale, "scale", {s}, {{"alpha", alpha}});
  if (c.causal) s = addOp(g, OpKind::CausalMask, "mask", {s}, {{"fill", -1e9}});
  const ValueId p = addOp(g, OpKind::Softmax, "softmax", {s});
  const ValueId o = addOp(g, OpKind::BatchMatMul, "av", {p, v}, bmmAttrs(false, false));
  g.outputs = {o};
  const size_t forwardNodes = g.nodes.size();
  if (c.training) {
    const auto bw = ir::NodeRole::Backward;
    const ValueId dO = g.addValue("do", {ir::DType::F32, qs}, ir::ValueKind::Input);
    a.inputs.push_back(dO);
    g.inputs = a.inputs;
    const ValueId dp = addOp(g, OpKind::BatchMatMul, "dp", {dO, v}, bmmAttrs(false, true), bw);
    ValueId ds = addOp(g, OpKind::SoftmaxGrad, "dsoftmax", {dp, p}, {}, bw);
    if (c.causal) ds = addOp(g, OpKind::CausalMask, "dmask", {ds}, {{"fill", 0.0}}, bw);
    ds = addOp(g, OpKind::Scale, "dscale", {ds}, {{"alpha", alpha}}, bw);
    const ValueId dq = addOp(g, OpKind::BatchMatMul, "dq", {ds, k}, bmmAttrs(false, false), bw);
    const ValueId dk = addOp(g, OpKind::BatchMatMul, "dk", {ds, q}, bmmAttrs(true, false), bw);
    const ValueId dv = addOp(g, OpKind::BatchMatMul, "dv", {p, dO}, bmmAttrs(true, false), bw);
    g.outputs = {o, dq, dk, dv};
  }
  a.plan = forwardBackwardPlan(g, forwardNodes);
  return a;
}

using Run = AttentionRun;

Run runAttention(const AttentionGraph& a, const std::map<ValueId, ir::Tensor>& feeds, bool fuse) {
  return runFusedOrNot(a.g, a.plan, feeds, fuse);
}

void checkFusedMatchesOpByOp(const AttentionCase& c) {
  INFO("queries " << c.queries << " keys " << c.keys << " dim " << c.dim << (c.causal ? " causal" : "")
                  << (c.training ? " training" : " inference"));
  const AttentionGraph a = buildAttention(c);
  std::mt19937 rng(static_cast<unsigned>(c.queries * 131 + c.dim));
  std::map<ValueId, ir::Tensor> feeds;
  for (ValueId v : a.inputs) feeds.emplace(v, randomTensor(a.g.value(v).type.shape, rng, -2.0f, 2.0f));
  const Run fused = runAttention(a, feeds, true), plain = runAttention(a, feeds, false);
  CHECK(fused.stats.attentionForward == 1);
  CHECK(fused.stats.attentionBackward == (c.training ? 1 : 0));
  CHECK(plain.stats.attentionForward == 0);
  const char* names[] = {"o", "dq", "dk", "dv"};
  for (size_t i = 0; i < plain.outputs.size(); ++i) {
    INFO(names[i]);
    CHECK(maxRelDiff(fused.outputs[i], plain.outputs[i]) < 2e-5);
  }
  // The scores and probabilities (and their gradients) have no memory when fused; the
  // backward keeps the forward's output instead, and the row statistics are small.
  const size_t scoreBytes = static_cast<size_t>(c.matrices * c.queries * c.keys) * sizeof(float);
  const size_t keptBytes = static_cast<size_t>(c.matrices * c.queries * (c.dim + 1)) * sizeof(float);
  CHECK(fused.arenaBytes + scoreBytes <= plain.arenaBytes + keptBytes + 64);
}

}  // namespace

TEST_CASE("fused attention forward and gradients equal the op-by-op chain, causal and not, odd lengths", "[runtime][attention]") {
  for (bool causal : {true, false})
    for (int64_t t : {1, 37, 64, 128, 130, 200})
      for (int64_t dim : {8, 33, 64}) {
        AttentionCase c;
        c.queries = c.keys = t;
        c.dim = dim;
        c.causal = causal;
        checkFusedMatchesOpByOp(c);
      }
}

TEST_CASE("fused attention with more keys than queries and forward only", "[runtime][attention]") {
  AttentionCase c;
  c.queries = 45;
  c.keys = 150;
  c.dim = 16;
  checkFusedMatchesOpByOp(c);
  c.training = false;
  checkFusedMatchesOpByOp(c);
  c.causal = true;
  c.queries = c.keys = 97;
  checkFusedMatchesOpByOp(c);
}

TEST_CASE("attention is not fused op by op, nor when its probabilities are read elsewhere", "[runtime][attention]") {
  AttentionCase c;
  c.queries = c.keys = 20;
  c.dim = 8;
  AttentionGraph a = buildAttention(c);
  // Also expose the probabilities: they must then exist, so nothing is fused.
  a.g.outputs.push_back(a.g.node(a.g.findNode("softmax")).outputs[0]);
  std::mt19937 rng(3);
  std::map<ValueId, ir::Tensor> feeds;
  for (ValueId v : a.inputs) feeds.emplace(v, randomTensor(a.g.value(v).type.shape, rng));
  CHECK(runAttention(a, feeds, true).stats.attentionForward == 0);
  // A backward split over two sections leaves the forward op by op too (its probabilities cross).
  AttentionGraph split = buildAttention(c);
  const ir::NodeId last = split.plan.sections[1].nodes.back();
  split.plan.sections[1].nodes.pop_back();
  split.plan.sections.push_back({2, "backward-2", ir::NodeRole::Backward, {last}, "", 0, {}});
  split.plan.schedule.push_back(2);
  const Run r = runAttention(split, feeds, true);
  CHECK(r.stats.attentionForward == 0);
  CHECK(r.stats.attentionBackward == 0);
}
