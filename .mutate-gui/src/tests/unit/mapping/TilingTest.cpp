// Operators too big for a section are tiled: a section of their own, run in
// passes that fit, with the streamed traffic charged in the estimate.
#include <catch2/catch.hpp>

#include "MapFixture.h"
#include "arch/OperatorTiling.h"

using namespace dfc;

TEST_CASE("an operator whose PMUs exceed a section's is tiled into passes that fit") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  const arch::ArchSpec a = test::smallPmuPreset();
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  const partition::Section* s = test::firstTiledSection(*plan);
  REQUIRE(s != nullptr);
  for (const auto& sec : plan->sections)
    for (const auto& t : sec.tiling) {
      CHECK(sec.nodes.size() == 1);  // a tiled operator is a section of its own
      CHECK(t.node == sec.nodes.front());
      CHECK(t.passes >= 2);
      CHECK(t.pmusPerPass <= a.totalPmus());
      CHECK(sec.estimate.pmus <= a.totalPmus());
      arch::CostModel cost(a);
      CHECK(cost.opCost(g, g.node(t.node)).pmus > a.totalPmus());  // it really did not fit whole
      CHECK(cost.opCost(g, g.node(t.node), t.passes - 1).pmus > a.totalPmus());  // the fewest passes
    }
}

TEST_CASE("a tiled operator's estimate pays the streamed tiles: slower than the same operator where it fits") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  auto tiled = test::mapGraph(g, test::smallPmuPreset(), 1.0, partition::OptLevel::O0);
  auto whole = test::mapGraph(g, test::preset("sn10"), 1.0, partition::OptLevel::O0);
  REQUIRE(tiled.ok());
  REQUIRE(whole.ok());
  REQUIRE(tiled->sections.size() == whole->sections.size());  // -o0: one operator per section either way
  int compared = 0;
  for (size_t i = 0; i < tiled->sections.size(); ++i) {
    const auto& t = tiled->sections[i];
    if (t.tiling.empty()) continue;
    const auto& w = whole->sections[i];
    REQUIRE(w.nodes == t.nodes);
    CHECK(w.tiling.empty());
    CHECK(t.estimate.ddrBytes == Approx(w.estimate.ddrBytes + t.tiling.front().extraDdrBytes));
    CHECK(t.estimate.latencyUs > w.estimate.latencyUs);
    ++compared;
  }
  CHECK(compared > 0);
}

TEST_CASE("the tiled dimension is the one moving the fewest extra bytes") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  const arch::ArchSpec a = test::smallPmuPreset();
  arch::CostModel cost(a);
  int gemms = 0;
  for (const ir::Node& n : g.nodes) {
    auto t = arch::planOperatorTiling(cost, g, n, a.totalPmus(), a.totalPcus());
    arch::OpCost whole = cost.opCost(g, n);
    if (whole.pmus <= a.totalPmus()) continue;
    REQUIRE(t.has_value());
    arch::GemmShape s;
    if (!cost.gemmShape(g, n, s)) continue;
    ++gemms;
    CHECK(t->gemm);
    REQUIRE(t->tileShape.size() == 4);
    const double bytesA = static_cast<double>(g.value(n.inputs[0]).type.byteSize());
    const double bytesC = static_cast<double>(g.value(n.outputs[0]).type.byteSize());
    const double columns = (t->passes - 1) * bytesA, reduction = 2.0 * (t->passes - 1) * bytesC;
    if (t->dim == "columns") CHECK(t->extraDdrBytes == Approx(columns));
    if (t->dim == "reduction") CHECK(t->extraDdrBytes == Approx(reduction));
    CHECK(t->extraDdrBytes <= std::max(columns, reduction));
    CHECK(arch::describeTiling(*t).find("passes of " + t->dim) != std::string::npos);
  }
  CHECK(gemms > 0);
}

TEST_CASE("an operator whose resident data exceeds one chip is tiled, however many chips there are") {
  // Issue 37: on 16 chips a vocabulary-sized head was held whole over four chips joined only by links, and its
  // routing never converged. Each operator's resident data now fits one chip; the section may still span several.
  ir::Graph g = test::trainingGraph("mlp", 32);
  arch::ArchSpec a = test::smallPmuPreset();
  for (int chips : {1, 2, 8}) {
    auto scaled = arch::scaleArch(a, chips, 0);
    REQUIRE(scaled.ok());
    auto plan = test::mapGraph(g, *scaled, 1.0);
    REQUIRE(plan.ok());
    const int chipPmus = scaled->tiles * scaled->pmusPerTile;
    arch::CostModel cost(*scaled);
    INFO(chips << " chip(s)");
    int tiled = 0;
    for (const auto& sec : plan->sections)
      for (const auto& t : sec.tiling) {
        CHECK(t.pmusPerPass <= chipPmus);
        CHECK(cost.opCost(g, g.node(t.node)).pmus > chipPmus);
        ++tiled;
      }
    CHECK(tiled > 0);  // the first layer's weight (1'568 PMUs of 256 B) is more than a chip's 640 PMUs
    for (const auto& sec : plan->sections)
      for (ir::NodeId id : sec.nodes)
        if (sec.tiling.empty()) CHECK(cost.opCost(g, g.node(id)).pmus <= chipPmus);  // untiled: fits a chip
  }
}
