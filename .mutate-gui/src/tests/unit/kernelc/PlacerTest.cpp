#include <catch2/catch.hpp>

#include <set>

#include "kernelc/Linker.h"
#include "kernelc/Placer.h"
#include "lowering/Lowerer.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;
using lowering::UnitKind;

namespace {

// The largest sections of a mapped training graph: realistic kernel graphs.
std::vector<lowering::KernelGraph> loweredSections(const std::string& model, const arch::ArchSpec& a, double scale) {
  ir::Graph g = test::trainingGraph(model, 32);
  auto plan = test::mapGraph(g, a, scale);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  std::vector<lowering::KernelGraph> out;
  for (const auto& s : plan->sections) out.push_back(lowering::lowerSection(g, s.nodes, cost, 0));
  return out;
}

}  // namespace

TEST_CASE("a matmul lowers to operand buffers, gemm PCUs and an output buffer") {
  ir::Graph g = test::trainingGraph("mlp", 64);
  auto a = test::preset("sn30");
  arch::CostModel cost(a);
  ir::NodeId mm = ir::kNoNode;
  for (const auto& n : g.nodes)
    if (n.op == ir::OpKind::MatMul && g.value(n.inputs[1]).kind == ir::ValueKind::Param) {
      mm = n.id;
      break;
    }
  REQUIRE(mm != ir::kNoNode);
  arch::OpCost c = cost.opCost(g, g.node(mm));
  auto kg = lowering::lowerSection(g, {mm}, cost);
  CHECK(kg.pcus() == c.pcus);
  CHECK(kg.pmus() == c.pmus);
  int gemm = 0, weights = 0, in = 0, out = 0;
  for (const auto& op : kg.ops) {
    gemm += op.role == lowering::KernelRole::Gemm;
    weights += op.role == lowering::KernelRole::Weights;
    in += op.role == lowering::KernelRole::InBuffer;
    out += op.role == lowering::KernelRole::OutBuffer;
  }
  CHECK(gemm == c.pcus);
  CHECK(weights >= 1);
  CHECK(in == 2);   // activations double-buffered
  CHECK(out == 2);
  // Every gemm PCU reads activations and weights and writes a result.
  std::map<int, int> degree;
  for (const auto& e : kg.edges) {
    ++degree[e.from];
    ++degree[e.to];
  }
  for (const auto& op : kg.ops)
    if (op.role == lowering::KernelRole::Gemm) CHECK(degree[op.id] >= 3);
}

TEST_CASE("values produced inside a section are not buffered twice") {
  ir::Graph g = test::trainingGraph("lenet", 32);
  auto a = test::preset("sn30");
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  arch::CostModel cost(a);
  const auto& s = plan->sections.front();
  REQUIRE(s.nodes.size() > 3);
  auto kg = lowering::lowerSection(g, s.nodes, cost);
  CHECK(kg.pmus() < s.estimate.pmus);  // the estimate counts a consumer's buffers again
  CHECK(kg.pcus() == s.estimate.pcus);
}

TEST_CASE("the placer beats a row-major placement by at least 20% on real sections") {
  auto a = test::preset("sn30");
  kernelc::Placer placer(a);
  int compared = 0;
  for (const std::string model : {"lenet", "mlp", "gpt2-mini"})
    for (const auto& kg : loweredSections(model, a, 0.25)) {
      if (kg.ops.size() < 20) continue;
      auto placed = placer.place(kg);
      auto naive = placer.placeRowMajor(kg);
      REQUIRE(placed.ok());
      REQUIRE(naive.ok());
      INFO(model << ": " << kg.ops.size() << " kernels, placed " << placed->totalHops << " hops, row-major "
                 << naive->totalHops);
      CHECK(placed->totalHops <= 0.8 * naive->totalHops);
      ++compared;
    }
  CHECK(compared >= 3);
}

TEST_CASE("annealing improves on the greedy seeding, deterministically") {
  auto a = test::preset("sn30");
  kernelc::Placer placer(a);
  auto graphs = loweredSections("lenet", a, 1.0);
  const auto& kg = *std::max_element(graphs.begin(), graphs.end(),
                                     [](const auto& x, const auto& y) { return x.ops.size() < y.ops.size(); });
  kernelc::PlacerOptions greedyOnly;
  greedyOnly.anneal = false;
  auto greedy = placer.place(kg, greedyOnly);
  auto first = placer.place(kg);
  auto second = placer.place(kg);
  REQUIRE(greedy.ok());
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->totalHops < greedy->totalHops);
  CHECK(first->totalHops == second->totalHops);
}

TEST_CASE("the adaptive schedule beats greedy seeding, row-major and the bounded schedule on real sections") {
  auto a = test::preset("sn30");
  kernelc::Placer placer(a);
  kernelc::PlacerOptions greedyOnly, bounded;
  greedyOnly.anneal = false;
  bounded.schedule = kernelc::PlacerOptions::Schedule::Bounded;
  int64_t adaptiveHops = 0, boundedHops = 0;
  int compared = 0;
  for (const std::string model : {"lenet", "gpt2-mini"})
    for (const auto& kg : loweredSections(model, a, 0.5)) {
      if (kg.ops.size() < 40) continue;
      auto adaptive = placer.place(kg);
      auto seed = placer.place(kg, greedyOnly);
      auto old = placer.place(kg, bounded);
      auto naive = placer.placeRowMajor(kg);
      REQUIRE(adaptive.ok());
      REQUIRE(seed.ok());
      REQUIRE(old.ok());
      REQUIRE(naive.ok());
      INFO(model << ": " << kg.ops.size() << " kernels: adaptive " << adaptive->totalHops << ", seed " << seed->totalHops
                 << ", bounded " << old->totalHops << ", row-major " << naive->totalHops);
      CHECK(adaptive->totalHops < seed->totalHops);
      CHECK(adaptive->totalHops < naive->totalHops);
      CHECK(adaptive->seedHops == seed->totalHops);
      CHECK(adaptive->temperatures > 10);
      CHECK(adaptive->moves <= kernelc::PlacerOptions{}.maxMoves);
      adaptiveHops += adaptive->totalHops;
      boundedHops += old->totalHops;
      ++compared;
    }
  CHECK(compared >= 3);
  CHECK(adaptiveHops < 0.95 * static_cast<double>(boundedHops));  // measured: about 10% fewer
}

TEST_CASE("the adaptive schedule is deterministic for a seed and keeps to its move budget") {
  auto a = test::preset("sn30");
  kernelc::Placer placer(a);
  auto graphs = loweredSections("gpt2-mini", a, 1.0);
  const auto& kg = *std::max_element(graphs.begin(), graphs.end(),
                                     [](const auto& x, const auto& y) { return x.ops.size() < y.ops.size(); });
  kernelc::PlacerOptions small;
  small.maxMoves = 20000;
  auto first = placer.place(kg, small);
  auto second = placer.place(kg, small);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->moves <= small.maxMoves);
  CHECK(first->totalHops == second->totalHops);
  for (size_t k = 0; k < kg.ops.size(); ++k) {
    CHECK(first->sites[k].row == second->sites[k].row);
    CHECK(first->sites[k].col == second->sites[k].col);
  }
  kernelc::PlacerOptions other = small;
  other.seed = 7;
  auto third = placer.place(kg, other);
  REQUIRE(third.ok());
  CHECK(third->totalHops < third->seedHops);
}

TEST_CASE("no two kernels share a unit and each sits on a unit of its kind") {
  auto a = test::preset("sn40l");
  kernelc::Placer placer(a);
  for (const auto& kg : loweredSections("lenet", a, 0.5)) {
    auto p = placer.place(kg);
    REQUIRE(p.ok());
    kernelc::Grid grid(a, p->tiles);
    std::set<std::pair<int, int>> used;
    for (const auto& op : kg.ops) {
      const auto& s = p->sites[static_cast<size_t>(op.id)];
      CHECK(used.insert({s.row, s.col}).second);
      CHECK(grid.siteAt(op.unit, s.row, s.col) >= 0);
    }
    CHECK(p->pcus == kg.pcus());
    CHECK(p->pmus == kg.pmus());
  }
}

TEST_CASE("a kernel graph larger than the chips is refused with the resource named") {
  auto a = test::preset("sn10", 1, 1);
  lowering::KernelGraph kg;
  for (int i = 0; i < a.totalPcus() + 1; ++i) kg.add(UnitKind::Pcu, lowering::KernelRole::Stage, 0, 1);
  auto p = kernelc::Placer(a).place(kg);
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error().message(), Catch::Contains("161 PCUs") && Catch::Contains("has 160") &&
                                      Catch::Contains("--n-chips"));
  // Two chips hold it, across the PCIe boundary.
  auto two = kernelc::Placer(test::preset("sn10", 2, 1)).place(kg);
  REQUIRE(two.ok());
  CHECK(two->tiles == 2);
}
