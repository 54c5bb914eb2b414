// Operators too big for a section are tiled: a section of their own, run in
// passes that fit, with the streamed traffic charged in the estimate.
#include <catch2/catch.hpp>

#include "MapFixture.h"
#include "arch/OperatorTiling.h"
#include "pef/PefFormat.h"

using namespace dfc;

namespace {

// sn10 with PMUs of 8 KiB: the mlp's weights need more PMUs than a section may use.
arch::ArchSpec tinyPmus() {
  arch::ArchSpec a = test::preset("sn10");
  a.pmuBytes = 8192;
  return a;
}

const partition::Section* tiledSection(const partition::Plan& plan) {
  for (const auto& s : plan.sections)
    if (!s.tiling.empty()) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("an operator whose PMUs exceed a section's is tiled into passes that fit") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  const arch::ArchSpec a = tinyPmus();
  auto plan = test::mapGraph(g, a, 1.0);
  REQUIRE(plan.ok());
  const partition::Section* s = tiledSection(*plan);
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
  auto tiled = test::mapGraph(g, tinyPmus(), 1.0, partition::OptLevel::O0);
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
  const arch::ArchSpec a = tinyPmus();
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

TEST_CASE("the sections chunk keeps the tiling, reads older PEFs as untiled and refuses a stray entry") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  auto plan = test::mapGraph(g, tinyPmus(), 1.0);
  REQUIRE(plan.ok());
  REQUIRE(tiledSection(*plan) != nullptr);
  const std::string json = pef::detail::encodeSections(*plan);
  partition::Plan back;
  REQUIRE(pef::detail::decodeSections(json, back).ok());
  REQUIRE(back.sections.size() == plan->sections.size());
  for (size_t i = 0; i < back.sections.size(); ++i) {
    const auto& a = plan->sections[i].tiling;
    const auto& b = back.sections[i].tiling;
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      CHECK(a[k].node == b[k].node);
      CHECK(a[k].dim == b[k].dim);
      CHECK(a[k].passes == b[k].passes);
      CHECK(a[k].tileShape == b[k].tileShape);
      CHECK(a[k].pmusPerPass == b[k].pmusPerPass);
      CHECK(a[k].extraDdrBytes == Approx(b[k].extraDdrBytes));
    }
  }
  auto untiled = test::mapGraph(g, test::preset("sn10"), 1.0);
  REQUIRE(untiled.ok());
  const std::string old = pef::detail::encodeSections(*untiled);
  CHECK(old.find("\"tiling\"") == std::string::npos);  // untiled sections write what format 1.1 wrote
  std::string stray = json;
  const size_t at = stray.find("\"node\":");
  REQUIRE(at != std::string::npos);
  stray.replace(at, 7, "\"node\":999999,\"was\":");
  partition::Plan refused;
  auto st = pef::detail::decodeSections(stray, refused);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("tiling entry"));
}
