// Operator tiling at its boundaries (arch/OperatorTiling.h): the fewest passes
// that fit a PMU budget, for every budget from one PMU short of the whole
// operator down to what no tiling fits (a budget equal to a pass's PMUs
// fits); a PCU budget equal to the operator's fewest PCUs is enough, one less
// is not; the tile shape is the ceiling of each extent over the passes; the
// extra bytes and the adjusted estimate worked by hand; the description's
// exact words.
#include <catch2/catch.hpp>

#include "MapFixture.h"
#include "arch/OperatorTiling.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;

namespace {

struct Gemm {
  ir::Graph graph;
  ir::NodeId node = 0;
};

// y[m, n] = x[m, k] @ w[k, n] with w a weight (the resident operand).
Gemm weightGemm(int64_t m, int64_t k, int64_t n) {
  Gemm g;
  const ir::ValueId x = g.graph.addInput("x", {ir::DType::F32, {m, k}});
  const ir::ValueId w = g.graph.addParam("w", ir::Tensor({ir::DType::F32, {k, n}}));
  ir::test::add(g.graph, ir::OpKind::MatMul, "mm", {x, w}, {"y"}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}});
  return g;
}

int fewestFitting(const arch::CostModel& cost, const ir::Graph& g, const ir::Node& n, int budget) {
  for (int p = 1; p <= 4096; ++p)
    if (cost.opCost(g, n, p).pmus <= budget) return p;
  return 0;
}

}  // namespace

TEST_CASE("tiling boundaries: the fewest passes for every PMU budget, a budget equal to a pass's PMUs fits", "[mapping][tiling][boundary]") {
  const arch::ArchSpec a = test::smallPmuPreset();
  const arch::CostModel cost(a);
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{64, 512, 96}, {8, 300, 1000}, {128, 1024, 16}}) {
    const Gemm g = weightGemm(m, k, n);
    const ir::Node& node = g.graph.node(g.node);
    const int whole = cost.opCost(g.graph, node).pmus;
    INFO(m << "x" << k << "x" << n << ": " << whole << " PMUs whole");
    REQUIRE(whole > 8);
    int checked = 0;
    for (int budget = whole - 1; budget >= 1; --budget) {
      const int want = fewestFitting(cost, g.graph, node, budget);
      auto t = arch::planOperatorTiling(cost, g.graph, node, budget, a.totalPcus());
      if (want == 0) {
        CHECK_FALSE(t.has_value());
        break;
      }
      if (!t) continue;  // no dimension long enough for that many passes
      INFO("budget " << budget);
      CHECK(t->passes == want);
      CHECK(t->pmusPerPass == cost.opCost(g.graph, node, want).pmus);
      CHECK(t->pmusPerPass <= budget);
      ++checked;
      // The budget exactly a pass's PMUs: the same passes.
      auto exact = arch::planOperatorTiling(cost, g.graph, node, t->pmusPerPass, a.totalPcus());
      REQUIRE(exact);
      CHECK(exact->passes == want);
    }
    CHECK(checked > 3);
  }
}

TEST_CASE("tiling boundaries: a PCU budget of exactly the operator's fewest PCUs is enough", "[mapping][tiling][boundary]") {
  const arch::ArchSpec a = test::smallPmuPreset();
  const arch::CostModel cost(a);
  const Gemm g = weightGemm(64, 512, 96);
  const ir::Node& node = g.graph.node(g.node);
  const arch::OpCost whole = cost.opCost(g.graph, node);
  const int budget = whole.pmus / 3;
  CHECK(arch::planOperatorTiling(cost, g.graph, node, budget, whole.minPcus).has_value());
  CHECK_FALSE(arch::planOperatorTiling(cost, g.graph, node, budget, whole.minPcus - 1).has_value());
}

TEST_CASE("tiling boundaries: tile shapes are ceilings, extra bytes by the dimension, worked by hand", "[mapping][tiling][boundary]") {
  const arch::ArchSpec a = test::smallPmuPreset();
  const arch::CostModel cost(a);
  // K long, N short: the reduction split (2 (P-1) bytes(C)) moves less than the columns (P-1) bytes(A).
  const Gemm deep = weightGemm(16, 1000, 10);
  const ir::Node& dn = deep.graph.node(deep.node);
  const int wholeDeep = cost.opCost(deep.graph, dn).pmus;
  auto t = arch::planOperatorTiling(cost, deep.graph, dn, wholeDeep / 3, a.totalPcus());
  REQUIRE(t);
  const int p = t->passes;
  REQUIRE(p >= 3);
  CHECK(t->dim == "reduction");
  CHECK(t->gemm);
  CHECK(t->tileShape == std::vector<int64_t>{1, 16, 10, (1000 + p - 1) / p});
  CHECK(t->extraDdrBytes == Approx(2.0 * (p - 1) * 16 * 10 * 4));
  CHECK(arch::describeTiling(*t) == std::to_string(p) + " passes of reduction tiles 1x16x10x" +
                                        std::to_string((1000 + p - 1) / p) + " (batch x M x N x K), " +
                                        std::to_string(t->pmusPerPass) + " PMUs each");
  // N long, K short: the columns.
  const Gemm wide = weightGemm(4, 10, 1000);
  const ir::Node& wn = wide.graph.node(wide.node);
  auto c = arch::planOperatorTiling(cost, wide.graph, wn, cost.opCost(wide.graph, wn).pmus / 3, a.totalPcus());
  REQUIRE(c);
  const int q = c->passes;
  CHECK(c->dim == "columns");
  CHECK(c->tileShape == std::vector<int64_t>{1, 4, (1000 + q - 1) / q, 10});
  CHECK(c->extraDdrBytes == Approx(double(q - 1) * 4 * 10 * 4));
}

TEST_CASE("tiling boundaries: the tiled section's estimate, worked by hand", "[mapping][tiling][boundary]") {
  const arch::ArchSpec a = test::smallPmuPreset();
  const arch::CostModel cost(a);
  const Gemm g = weightGemm(16, 1000, 10);
  const ir::Node& node = g.graph.node(g.node);
  const int whole = cost.opCost(g.graph, node).pmus;
  partition::OperatorTiling t;
  t.node = g.node;
  t.dim = "reduction";
  t.passes = 4;
  t.gemm = true;
  t.pmusPerPass = 7;
  t.extraDdrBytes = 3e6;
  const double fill = a.pcuStages / (a.clockGhz * 1e3);
  partition::SectionEstimate e;
  e.pmus = whole + 5;  // the operator and 5 PMUs of others
  e.ddrBytes = 1e6;
  e.computeUs = 10;
  e.memoryUs = 2;
  e.latencyUs = 10 + fill + 1.5;  // 1.5 us of chip-to-chip time beyond compute and one fill
  arch::applyTiling(cost, g.graph, t, e);
  CHECK(e.pmus == 7 + 5);
  CHECK(e.ddrBytes == Approx(4e6));
  const double memory = 4e6 / (a.offChipGbps() * 1e9) * 1e6;
  CHECK(e.memoryUs == Approx(std::max(2.0, memory)).epsilon(1e-12));
  CHECK(e.latencyUs == Approx(std::max(10.0, e.memoryUs) + 4 * fill + 1.5).epsilon(1e-12));
}
