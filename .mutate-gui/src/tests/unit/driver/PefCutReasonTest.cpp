// The sections chunk of a PEF carries why each section starts (format 1.3):
// every field round-trips, a chunk without "cut" (format 1.2) reads as not
// recorded, and an unknown kind or a field of the wrong type is refused
// naming the section.
#include <catch2/catch.hpp>

#include "analysis/SectionBoundaries.h"
#include "pef/PefFormat.h"
#include "unit/mapping/MapFixture.h"

using namespace dfc;

namespace {

partition::Plan lenetPlan() {
  ir::Graph g = test::trainingGraph("lenet", 8);
  auto plan = test::mapGraph(g, test::preset("sn10"), 0.05);
  REQUIRE(plan.ok());
  return std::move(*plan);
}

std::string withCutOf(std::string json, const std::string& from, const std::string& to) {
  const size_t at = json.find(from);
  REQUIRE(at != std::string::npos);
  return json.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the sections chunk keeps every section's cut reason", "[pef][why]") {
  const partition::Plan plan = lenetPlan();
  REQUIRE(plan.sections.size() > 2);
  partition::Plan back;
  REQUIRE(pef::detail::decodeSections(pef::detail::encodeSections(plan), back).ok());
  REQUIRE(back.sections.size() == plan.sections.size());
  for (size_t i = 0; i < plan.sections.size(); ++i) {
    const partition::CutReason &a = plan.sections[i].cut, &b = back.sections[i].cut;
    CHECK(a.kind == b.kind);
    CHECK(a.detail == b.detail);
    CHECK(a.used == b.used);
    CHECK(a.adding == b.adding);
    CHECK(a.limit == b.limit);
  }
  CHECK(back.sections[0].cut.kind == partition::CutKind::None);
  CHECK(back.sections[1].cut.kind != partition::CutKind::None);
}

TEST_CASE("a PEF from before format 1.3 reads its boundaries as not recorded", "[pef][why]") {
  partition::Plan plan = lenetPlan();
  for (auto& s : plan.sections) s.cut = {};
  const std::string json = pef::detail::encodeSections(plan);
  CHECK(json.find("\"cut\"") == std::string::npos);  // what format 1.2 wrote
  partition::Plan back;
  REQUIRE(pef::detail::decodeSections(json, back).ok());
  for (const auto& s : back.sections) CHECK(s.cut.kind == partition::CutKind::None);
  CHECK_THAT(analysis::formatBoundaries(back),
             Catch::Contains("not_recorded     not recorded (a PEF from before format 1.3)"));
}

TEST_CASE("a cut of an unknown kind or with a field of the wrong type is refused naming the section", "[pef][why]") {
  const partition::Plan plan = lenetPlan();
  const std::string json = pef::detail::encodeSections(plan);
  const std::string name = plan.sections[1].name;
  const std::string kind = "\"kind\":\"" + std::string(partition::cutKindName(plan.sections[1].cut.kind)) + "\"";
  partition::Plan a, b;
  auto unknown = pef::detail::decodeSections(withCutOf(json, kind, "\"kind\":\"whim\""), a);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message(), Catch::Contains("section '" + name + "'") && Catch::Contains("'whim'"));
  auto wrongType = pef::detail::decodeSections(withCutOf(json, "\"used\":", "\"used\":\"x\",\"was\":"), b);
  CHECK_FALSE(wrongType.ok());
}
