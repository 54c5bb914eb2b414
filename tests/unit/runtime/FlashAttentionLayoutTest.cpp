// Fused attention reading q, k, v from a fused [B, T, 3, H, D] projection and
// writing o heads-last, and in training its gradients back in those layouts
// (runtime/AttentionLayouts.h): the chain fusedQkvAttention builds and
// autograd differentiates, run fused (the layout ops absorbed) and op by op;
// the output and dX must agree, and a value read outside the attention keeps
// its layout op.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>

#include "AttentionTestUtil.h"
#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

struct PackedCase {
  int64_t batch = 2, heads = 3, seq = 0, dim = 0;
  bool causal = true, training = true;
  bool exposeQuery = false;  // q also a graph output: its slice and transpose must run
};

ir::Attributes bmm(bool ta, bool tb) { return {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}; }
ir::Attributes perm(std::vector<int64_t> p) { return {{"perm", std::move(p)}}; }

struct PackedGraph {
  ir::Graph g;
  partition::Plan plan;
  std::vector<ValueId> inputs;
};

// Forward: x -> transpose -> 3 slices -> reshapes -> attention -> transpose. Backward:
// dY -> transpose -> attention gradients -> reshapes -> slice_grads -> adds -> transpose = dX.
PackedGraph buildPacked(const PackedCase& c) {
  PackedGraph a;
  ir::Graph& g = a.g;
  const int64_t b = c.batch, h = c.heads, t = c.seq, d = c.dim;
  const ValueId x = g.addValue("x", {ir::DType::F32, {b, t, 3, h, d}}, ir::ValueKind::Input);
  a.inputs = {x};
  const ValueId packed = addOp(g, OpKind::Transpose, "heads_first", {x}, perm({2, 0, 3, 1, 4}));
  ValueId part[3];
  for (int64_t i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    const ValueId s =
        addOp(g, OpKind::Slice, "slice" + n, {packed}, {{"axis", int64_t{0}}, {"start", i}, {"end", i + 1}});
    part[i] = addOp(g, OpKind::Reshape, "part" + n, {s}, {{"shape", std::vector<int64_t>{b, h, t, d}}});
  }
  const double alpha = 1.0 / std::sqrt(static_cast<double>(d));
  ValueId s = addOp(g, OpKind::Scale, "scale",
                    {addOp(g, OpKind::BatchMatMul, "qk", {part[0], part[1]}, bmm(false, true))}, {{"alpha", alpha}});
  if (c.causal) s = addOp(g, OpKind::CausalMask, "mask", {s}, {{"fill", -1e9}});
  const ValueId p = addOp(g, OpKind::Softmax, "softmax", {s});
  const ValueId o = addOp(g, OpKind::BatchMatMul, "av", {p, part[2]}, bmm(false, false));
  const ValueId y = addOp(g, OpKind::Transpose, "heads_last", {o}, perm({0, 2, 1, 3}));
  g.outputs = {y};
  if (c.exposeQuery) g.outputs.push_back(part[0]);
  const size_t forwardNodes = g.nodes.size();
  if (c.training) {
    const auto bw = ir::NodeRole::Backward;
    const ValueId dy = g.addValue("dy", {ir::DType::F32, {b, t, h, d}}, ir::ValueKind::Input);
    a.inputs.push_back(dy);
    const ValueId dO = addOp(g, OpKind::Transpose, "dy_heads_first", {dy}, perm({0, 2, 1, 3}), bw);
    const ValueId dp = addOp(g, OpKind::BatchMatMul, "dp", {dO, part[2]}, bmm(false, true), bw);
    ValueId ds = addOp(g, OpKind::SoftmaxGrad, "dsoftmax", {dp, p}, {}, bw);
    if (c.causal) ds = addOp(g, OpKind::CausalMask, "dmask", {ds}, {{"fill", 0.0}}, bw);
    ds = addOp(g, OpKind::Scale, "dscale", {ds}, {{"alpha", alpha}}, bw);
    const ValueId grads[3] = {addOp(g, OpKind::BatchMatMul, "dq", {ds, part[1]}, bmm(false, false), bw),
                              addOp(g, OpKind::BatchMatMul, "dk", {ds, part[0]}, bmm(true, false), bw),
                              addOp(g, OpKind::BatchMatMul, "dv", {p, dO}, bmm(true, false), bw)};
    ValueId sg[3];
    for (int64_t i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i);
      const ValueId r =
          addOp(g, OpKind::Reshape, "dpart" + n, {grads[i]}, {{"shape", std::vector<int64_t>{1, b, h, t, d}}}, bw);
      sg[i] = addOp(g, OpKind::SliceGrad, "dslice" + n, {r},
                    {{"axis", int64_t{0}}, {"start", i}, {"input_shape", std::vector<int64_t>{3, b, h, t, d}}}, bw);
    }
    // Autograd's order: the last reader's gradient first (v, then k, then q).
    const ValueId sum =
        addOp(g, OpKind::Add, "acc2", {addOp(g, OpKind::Add, "acc1", {sg[2], sg[1]}, {}, bw), sg[0]}, {}, bw);
    g.outputs.push_back(addOp(g, OpKind::Transpose, "dx", {sum}, perm({1, 3, 0, 2, 4}), bw));
  }
  g.inputs = a.inputs;
  a.plan = forwardBackwardPlan(g, forwardNodes);
  return a;
}

using Run = AttentionRun;

Run runPacked(const PackedGraph& a, const std::map<ValueId, ir::Tensor>& feeds, bool fuse) {
  return runFusedOrNot(a.g, a.plan, feeds, fuse);
}

// The fused run's layout ops absorbed, and its outputs against op by op.
int fusedLayoutOps(const PackedCase& c) {
  INFO("seq " << c.seq << " dim " << c.dim << (c.causal ? " causal" : "") << (c.training ? " training" : " inference")
              << (c.exposeQuery ? " q exposed" : ""));
  const PackedGraph a = buildPacked(c);
  std::mt19937 rng(static_cast<unsigned>(c.seq * 7 + c.dim));
  std::map<ValueId, ir::Tensor> feeds;
  for (ValueId v : a.inputs) feeds.emplace(v, randomTensor(a.g.value(v).type.shape, rng, -2.0f, 2.0f));
  const Run fused = runPacked(a, feeds, true), plain = runPacked(a, feeds, false);
  CHECK(fused.stats.attentionForward == 1);
  CHECK(fused.stats.attentionBackward == (c.training ? 1 : 0));
  CHECK(plain.stats.attentionLayoutOps == 0);
  for (size_t i = 0; i < plain.outputs.size(); ++i) {
    INFO("output " << a.g.value(a.g.outputs[i]).name);
    CHECK(maxRelDiff(fused.outputs[i], plain.outputs[i]) < 2e-5);
  }
  return fused.stats.attentionLayoutOps;
}

}  // namespace

TEST_CASE("fused attention reads a packed qkv and writes o and dX in their layouts, equal to op by op",
          "[runtime][attention]") {
  for (bool causal : {true, false})
    for (int64_t seq : {1, 37, 130})
      for (int64_t dim : {8, 33}) {
        PackedCase c;
        c.seq = seq;
        c.dim = dim;
        c.causal = causal;
        // forward: transpose, 3 slices, 3 reshapes, the output transpose; backward: the dY
        // transpose, 3 reshapes, 3 slice_grads, 2 adds, the transpose back
        CHECK(fusedLayoutOps(c) == 8 + 10);
        c.training = false;
        CHECK(fusedLayoutOps(c) == 8);
      }
}

TEST_CASE("a q read outside the attention keeps the packed layout ops, o and dO still heads-last",
          "[runtime][attention]") {
  PackedCase c;
  c.seq = 40;
  c.dim = 16;
  c.exposeQuery = true;
  CHECK(fusedLayoutOps(c) == 2);  // the output transpose and dY's
  c.training = false;
  CHECK(fusedLayoutOps(c) == 1);
}
