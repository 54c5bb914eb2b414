// Fused attention (kernels/FlashAttention.h) at its block boundaries and
// across steps: lengths one either side of the query block (64) and of the
// key block (128), a single key, and an executor whose q, k, v and dO change
// between steps (its prepared kernels and saved row statistics must follow):
// the forward output and the three gradients equal the op-by-op chain's.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>

#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"
#include "runtime/kernels/FlashAttention.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

ir::Attributes bmm(bool ta, bool tb) { return {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}; }

struct AttentionGraph {
  ir::Graph g;
  partition::Plan plan;
  std::vector<ValueId> inputs;
};

// The chain TransformerBlocks' attend() and autograd emit: a forward section and a backward section.
AttentionGraph build(int64_t queries, int64_t keys, int64_t dim, bool causal) {
  AttentionGraph a;
  ir::Graph& g = a.g;
  const ir::Shape qs{1, 2, queries, dim}, ks{1, 2, keys, dim};
  const ValueId q = g.addValue("q", {ir::DType::F32, qs}, ir::ValueKind::Input);
  const ValueId k = g.addValue("k", {ir::DType::F32, ks}, ir::ValueKind::Input);
  const ValueId v = g.addValue("v", {ir::DType::F32, ks}, ir::ValueKind::Input);
  const ValueId dO = g.addValue("do", {ir::DType::F32, qs}, ir::ValueKind::Input);
  a.inputs = {q, k, v, dO};
  g.inputs = a.inputs;
  const double alpha = 1.0 / std::sqrt(static_cast<double>(dim));
  ValueId s = addOp(g, OpKind::BatchMatMul, "qk", {q, k}, bmm(false, true));
  s = addOp(g, OpKind::Scale, "scale", {s}, {{"alpha", alpha}});
  if (causal) s = addOp(g, OpKind::CausalMask, "mask", {s}, {{"fill", -1e9}});
  const ValueId p = addOp(g, OpKind::Softmax, "softmax", {s});
  const ValueId o = addOp(g, OpKind::BatchMatMul, "av", {p, v}, bmm(false, false));
  const size_t forwardNodes = g.nodes.size();
  const auto bw = ir::NodeRole::Backward;
  const ValueId dp = addOp(g, OpKind::BatchMatMul, "dp", {dO, v}, bmm(false, true), bw);
  ValueId ds = addOp(g, OpKind::SoftmaxGrad, "dsoftmax", {dp, p}, {}, bw);
  if (causal) ds = addOp(g, OpKind::CausalMask, "dmask", {ds}, {{"fill", 0.0}}, bw);
  ds = addOp(g, OpKind::Scale, "dscale", {ds}, {{"alpha", alpha}}, bw);
  const ValueId dq = addOp(g, OpKind::BatchMatMul, "dq", {ds, k}, bmm(false, false), bw);
  const ValueId dk = addOp(g, OpKind::BatchMatMul, "dk", {ds, q}, bmm(true, false), bw);
  const ValueId dv = addOp(g, OpKind::BatchMatMul, "dv", {p, dO}, bmm(true, false), bw);
  g.outputs = {o, dq, dk, dv};
  std::vector<ir::NodeId> fw, bwNodes;
  for (size_t n = 0; n < g.nodes.size(); ++n) (n < forwardNodes ? fw : bwNodes).push_back(static_cast<ir::NodeId>(n));
  a.plan.sections = {{0, "forward", ir::NodeRole::Forward, fw, "", 0, {}},
                     {1, "backward", ir::NodeRole::Backward, bwNodes, "", 0, {}}};
  a.plan.schedule = {0, 1};
  return a;
}

runtime::Executor executor(const AttentionGraph& a, bool fuse) {
  runtime::ExecutorOptions options;
  options.threads = 2;
  options.fuse = fuse;
  auto ex = runtime::Executor::create(a.g, a.plan, options);
  if (!ex) FAIL(ex.error().message());
  return std::move(*ex);
}

std::vector<ir::Tensor> step(runtime::Executor& ex, const AttentionGraph& a, const std::map<ValueId, ir::Tensor>& feeds) {
  for (const auto& [id, t] : feeds) REQUIRE(ex.setInput(id, t).ok());
  REQUIRE(ex.step(false).ok());
  std::vector<ir::Tensor> out;
  for (ValueId v : a.g.outputs) out.push_back(ex.tensor(v).clone());
  return out;
}

std::map<ValueId, ir::Tensor> randomFeeds(const AttentionGraph& a, std::mt19937& rng) {
  std::map<ValueId, ir::Tensor> feeds;
  for (ValueId v : a.inputs) feeds.emplace(v, randomTensor(a.g.value(v).type.shape, rng, -2.0f, 2.0f));
  return feeds;
}

void compare(const std::vector<ir::Tensor>& fused, const std::vector<ir::Tensor>& plain) {
  const char* names[] = {"o", "dq", "dk", "dv"};
  for (size_t i = 0; i < plain.size(); ++i) {
    INFO(names[i]);
    CHECK(maxRelDiff(fused[i], plain[i]) < 2e-5);
  }
}

}  // namespace

TEST_CASE("fused attention at its block boundaries: one row either side of a query and a key block", "[runtime][attention][boundary]") {
  using runtime::kernels::kKeyBlock;
  using runtime::kernels::kQueryBlock;
  struct Case {
    int64_t queries, keys;
    bool causal;
  };
  const Case cases[] = {{kQueryBlock - 1, kQueryBlock - 1, true}, {kQueryBlock + 1, kQueryBlock + 1, true},
                        {kQueryBlock, kKeyBlock + 1, false},      {kQueryBlock + 1, kKeyBlock - 1, false},
                        {2 * kQueryBlock, kKeyBlock, false},      {kKeyBlock + 1, kKeyBlock + 1, true},
                        {3, 1, false},                            {1, 1, true}};
  for (const Case& c : cases) {
    INFO(c.queries << " queries, " << c.keys << " keys" << (c.causal ? ", causal" : ""));
    const AttentionGraph a = build(c.queries, c.keys, 16, c.causal);
    std::mt19937 rng(static_cast<unsigned>(c.queries * 7 + c.keys));
    const auto feeds = randomFeeds(a, rng);
    runtime::Executor fused = executor(a, true), plain = executor(a, false);
    compare(step(fused, a, feeds), step(plain, a, feeds));
    CHECK(fused.fusionStats().attentionForward == 1);
    CHECK(fused.fusionStats().attentionBackward == 1);
  }
}

TEST_CASE("fused attention follows q, k, v and dO changed between steps", "[runtime][attention][reuse]") {
  const AttentionGraph a = build(runtime::kernels::kQueryBlock + 1, runtime::kernels::kQueryBlock + 1, 8, true);
  std::mt19937 rng(17);
  runtime::Executor fused = executor(a, true), plain = executor(a, false);
  auto feeds = randomFeeds(a, rng);
  compare(step(fused, a, feeds), step(plain, a, feeds));
  // Only the keys change (in place, the last row): scores and statistics must be recomputed.
  ir::Tensor& k = feeds.at(a.inputs[1]);
  for (int64_t i = k.numElements() - 8; i < k.numElements(); ++i) k.data<float>()[i] += 1.5f;
  compare(step(fused, a, feeds), step(plain, a, feeds));
  // Only dO changes: the backward alone sees it.
  feeds[a.inputs[3]] = randomTensor(a.g.value(a.inputs[3]).type.shape, rng, -2.0f, 2.0f);
  compare(step(fused, a, feeds), step(plain, a, feeds));
  // Everything new.
  feeds = randomFeeds(a, rng);
  compare(step(fused, a, feeds), step(plain, a, feeds));
}
