// The chip plan of a fused attention (arch/AttentionCost.h) worked by hand: a
// query block is as many rows as one PMU holds, K and V are read again once
// per query block after the first (a length of exactly k blocks and one row
// more), the backward re-reads Q, dO, O, the log-sum-exp and dQ's partial
// sums (twice) per key block after the first, the saved statistics are
// matrices x queries floats (none without a backward), the PMUs are the
// double-buffered operands plus the tiles, and the FLOP are the members'.
#include <catch2/catch.hpp>

#include <cmath>

#include "arch/AttentionCost.h"
#include "arch/CostModel.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;
using ir::OpKind;
using ir::ValueId;

namespace {

ir::Attributes bmm(bool ta, bool tb) { return {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}; }

struct Attention {
  ir::Graph g;
  std::vector<ir::NodeId> forward, backward;
  ValueId q = 0, k = 0, v = 0, o = 0, dO = 0, dq = 0;
};

// The chain autograd emits (as in the runtime's FlashAttention tests): 2 x 2
// matrices of `queries` x `dim` against `keys` rows.
Attention attention(int64_t queries, int64_t keys, int64_t dim, bool training) {
  Attention a;
  ir::Graph& g = a.g;
  const ir::Shape qs{2, 2, queries, dim}, ks{2, 2, keys, dim};
  a.q = g.addInput("q", {ir::DType::F32, qs});
  a.k = g.addInput("k", {ir::DType::F32, ks});
  a.v = g.addInput("v", {ir::DType::F32, ks});
  ValueId s = ir::test::add(g, OpKind::BatchMatMul, "qk", {a.q, a.k}, {"s"}, bmm(false, true))[0];
  s = ir::test::add(g, OpKind::Scale, "scale", {s}, {"ss"}, {{"alpha", 0.25}})[0];
  const ValueId p = ir::test::add(g, OpKind::Softmax, "softmax", {s}, {"p"})[0];
  a.o = ir::test::add(g, OpKind::BatchMatMul, "av", {p, a.v}, {"o"}, bmm(false, false))[0];
  g.outputs = {a.o};
  for (size_t n = 0; n < g.nodes.size(); ++n) a.forward.push_back(static_cast<ir::NodeId>(n));
  if (!training) return a;
  const auto bw = ir::NodeRole::Backward;
  a.dO = g.addInput("do", {ir::DType::F32, qs});
  const ValueId dp = ir::test::add(g, OpKind::BatchMatMul, "dp", {a.dO, a.v}, {"dp"}, bmm(false, true), "", bw)[0];
  ValueId ds = ir::test::add(g, OpKind::SoftmaxGrad, "dsoftmax", {dp, p}, {"ds"}, {}, "", bw)[0];
  ds = ir::test::add(g, OpKind::Scale, "dscale", {ds}, {"dss"}, {{"alpha", 0.25}}, "", bw)[0];
  a.dq = ir::test::add(g, OpKind::BatchMatMul, "dq", {ds, a.k}, {"dq"}, bmm(false, false), "", bw)[0];
  const ValueId dk = ir::test::add(g, OpKind::BatchMatMul, "dk", {ds, a.q}, {"dk"}, bmm(true, false), "", bw)[0];
  const ValueId dv = ir::test::add(g, OpKind::BatchMatMul, "dv", {p, a.dO}, {"dv"}, bmm(true, false), "", bw)[0];
  g.outputs = {a.o, a.dq, dk, dv};
  for (size_t n = a.forward.size(); n < g.nodes.size(); ++n) a.backward.push_back(static_cast<ir::NodeId>(n));
  return a;
}

// PMUs of 512 bytes: 8 rows of 16 floats a block.
arch::ArchSpec chip() {
  arch::ArchSpec a;
  a.name = "attn";
  a.tiles = 4;
  a.pcusPerTile = 64;
  a.pmusPerTile = 64;
  a.pmuBytes = 512;
  a.pcuLanes = 16;
  a.pcuStages = 6;
  a.clockGhz = 1;
  a.peakTflops = 10;
  a.ddrGbps = 100;
  return a;
}

double bytes(const ir::Graph& g, ValueId v) { return static_cast<double>(g.value(v).type.byteSize()); }

}  // namespace

TEST_CASE("fused attention cost: K and V are re-read once per query block after the first", "[mapping][attention][exact]") {
  const arch::CostModel cost(chip());
  // (queries, blocks of 8 rows): exactly one, one row more, exactly three, one row more.
  for (auto [queries, blocks] : {std::pair<int64_t, int64_t>{8, 1}, {9, 2}, {24, 3}, {25, 4}, {1, 1}}) {
    INFO(queries << " queries");
    const Attention a = attention(queries, 40, 16, false);
    auto plans = arch::tiledAttention(cost, a.g, a.forward, a.g.computeUsers());
    REQUIRE(plans.size() == 1);
    const arch::TiledAttention& t = plans[0];
    CHECK(t.restreamBytes == (blocks - 1) * (bytes(a.g, a.k) + bytes(a.g, a.v)));
    CHECK(t.statsBytes == 0);  // inference: no backward to keep the statistics for
    CHECK(t.nodes == a.forward);
    CHECK(t.neverStored.size() == 3);  // scores, scaled scores, probabilities; o is stored
    CHECK(t.extraReads.empty());
    double flop = 0;
    for (ir::NodeId n : a.forward) flop += cost.opCost(a.g, a.g.node(n)).flop;
    CHECK(t.cost.flop == Approx(flop).epsilon(1e-12));
    CHECK(t.cost.pmus - t.cost.treePmus == 2 * (3 + 2) + 2);
    CHECK(t.cost.inputPmus == std::vector<int>{2, 2, 2});
    CHECK(t.cost.outputPmus == std::vector<int>{2, 2});
    CHECK(t.cost.cls == arch::OpClass::Gemm);
  }
  // A head dimension wider than a PMU holds: one row a block.
  const Attention wide = attention(5, 7, 200, false);
  auto plans = arch::tiledAttention(cost, wide.g, wide.forward, wide.g.computeUsers());
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].restreamBytes == 4 * (bytes(wide.g, wide.k) + bytes(wide.g, wide.v)));
}

TEST_CASE("fused attention cost: the backward re-reads per key block after the first, statistics kept", "[mapping][attention][exact]") {
  const arch::CostModel cost(chip());
  for (auto [keys, blocks] : {std::pair<int64_t, int64_t>{16, 2}, {17, 3}, {8, 1}}) {
    INFO(keys << " keys");
    const Attention a = attention(12, keys, 16, true);
    std::vector<ir::NodeId> all = a.forward;
    all.insert(all.end(), a.backward.begin(), a.backward.end());
    auto plans = arch::tiledAttention(cost, a.g, all, a.g.computeUsers());
    REQUIRE(plans.size() == 2);
    const arch::TiledAttention& f = plans[0];
    const arch::TiledAttention& b = plans[1];
    const double stats = 2 * 2 * 12 * 4.0;  // matrices x queries floats
    CHECK(f.statsBytes == stats);
    CHECK(f.restreamBytes == 1 * (bytes(a.g, a.k) + bytes(a.g, a.v)));  // 12 queries: 2 blocks of 8
    CHECK(b.statsBytes == stats);
    CHECK(b.restreamBytes ==
          (blocks - 1) * (bytes(a.g, a.q) + bytes(a.g, a.dO) + bytes(a.g, a.o) + stats + 2 * bytes(a.g, a.dq)));
    CHECK(b.extraReads == std::vector<ValueId>{a.o});
    CHECK(b.cost.pmus - b.cost.treePmus == 2 * (6 + 3) + 3);
    double flop = 0;
    for (ir::NodeId n : b.nodes) flop += cost.opCost(a.g, a.g.node(n)).flop;
    CHECK(b.cost.flop == Approx(flop).epsilon(1e-12));
    // The probabilities are rebuilt per tile: never stored, in the backward's list.
    const ValueId p = a.g.node(a.g.findNode("softmax")).outputs[0];
    CHECK(std::find(b.neverStored.begin(), b.neverStored.end(), p) != b.neverStored.end());
  }
  // A section holding the forward alone plans the forward only.
  const Attention a = attention(12, 16, 16, true);
  auto forwardOnly = arch::tiledAttention(cost, a.g, a.forward, a.g.computeUsers());
  REQUIRE(forwardOnly.size() == 1);
  CHECK(forwardOnly[0].nodes == a.forward);
}
