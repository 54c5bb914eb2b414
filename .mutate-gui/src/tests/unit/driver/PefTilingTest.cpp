// The sections chunk of a PEF carries the tiled operators (format 1.2).
#include <catch2/catch.hpp>

#include "arch/OperatorTiling.h"
#include "pef/PefFormat.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

TEST_CASE("the sections chunk keeps the tiling, reads older PEFs as untiled and refuses a stray entry") {
  ir::Graph g = test::trainingGraph("mlp", 32);
  auto plan = test::mapGraph(g, test::smallPmuPreset(), 1.0);
  REQUIRE(plan.ok());
  REQUIRE(test::firstTiledSection(*plan) != nullptr);
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
