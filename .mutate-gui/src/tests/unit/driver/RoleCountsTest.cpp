// Counts by role are data: a compile's sectionsByRole covers every section once,
// and agrees with the roles the PEF reader and the run store give back by name.
#include <catch2/catch.hpp>
#include <numeric>

#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"
#include "ir/Role.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"

using namespace dfc;

TEST_CASE("sections by role sum to the sections, and match the PEF and the run store", "[driver][roles]") {
  test::ScratchDir dir("role-counts");
  driver::CompileOptions o;
  o.model = "lenet";
  o.level = partition::OptLevel::O0;
  o.batchSize = 4;
  o.outputFolder = dir / "out";
  o.dbPath = dir / "runs.sqlite";
  auto result = driver::compile(o);
  REQUIRE(result.ok());
  const auto& byRole = result->sectionsByRole;
  CHECK(std::accumulate(byRole.begin(), byRole.end(), 0) == result->numSections);

  auto pef = pef::readPef(result->pefPath);
  REQUIRE(pef.ok());
  ir::PerRole<int> fromPef{};
  for (const auto& s : pef->plan.sections) ++fromPef[ir::roleIndex(s.type)];
  CHECK(fromPef == byRole);

  auto store = profile::RunStore::open(o.dbPath);
  REQUIRE(store.ok());
  auto sections = store->sectionsOfCompile(result->compileId);
  REQUIRE(sections.ok());
  ir::PerRole<int> fromStore{};
  for (const auto& s : *sections) {
    auto role = ir::parseRole(s.type);
    INFO("stored type " << s.type);
    REQUIRE(role);
    ++fromStore[ir::roleIndex(*role)];
  }
  CHECK(fromStore == byRole);
  // A training compile has forward, backward and optimizer work.
  for (ir::NodeRole r : {ir::NodeRole::Forward, ir::NodeRole::Backward, ir::NodeRole::Optimizer})
    CHECK(result->sections(r) > 0);
}
