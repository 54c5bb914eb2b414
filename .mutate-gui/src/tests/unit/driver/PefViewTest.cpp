// A PEF is read to run it (its host memory must fit this machine) or to view
// it (dfstudio, dfc inspect): a 7B model's PEF must open where it cannot run.
#include <catch2/catch.hpp>

#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"
#include "support/SizeBudget.h"

using namespace dfc;

namespace {

struct BudgetGuard {
  explicit BudgetGuard(uint64_t bytes) { support::setMemoryBudget(bytes); }
  ~BudgetGuard() { support::setMemoryBudget(0); }
};

}  // namespace

TEST_CASE("a PEF over the host-memory budget is refused for running but opens for viewing") {
  test::ScratchDir dir("pef-view");
  driver::CompileOptions c;
  c.model = "mlp";
  c.batchSize = 8;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  BudgetGuard tiny(64 << 10);  // above the file (weights are recipes), far below the weights and optimizer state
  auto run = pef::readPef(compiled->pefPath);
  REQUIRE_FALSE(run.ok());
  CHECK_THAT(run.error().message(), Catch::Contains("memory budget"));
  auto view = pef::readPef(compiled->pefPath, pef::PefUse::View);
  if (!view) FAIL(view.error().message());
  CHECK(static_cast<int>(view->plan.sections.size()) == compiled->numSections);
  // Zero-filled state (momentum buffers) stays a recipe when viewing: nothing the file does not hold is allocated.
  size_t recipes = 0;
  for (const auto& [id, t] : view->graph.initializers) recipes += t.isDeferred();
  CHECK(recipes > 0);
}
