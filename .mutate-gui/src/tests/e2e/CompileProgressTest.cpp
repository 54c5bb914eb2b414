// The progress a compile reports is what dfstudio's progress bar shows: every
// stage in order, and inside "passes" each pass as it finishes. A cancel flag
// stops the compile before anything is written.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"

using namespace dfc;

TEST_CASE("compile progress follows the stages and the passes and cancel writes nothing") {
  test::ScratchDir dir("progress");
  driver::CompileOptions o;
  o.model = "mlp";
  o.outputFolder = dir / "out";
  o.dbPath = "-";
  std::vector<std::string> seen;
  int lastIndex = -1;
  bool monotonic = true;
  auto result = driver::compile(o, [&](const driver::CompileProgress& p) {
    seen.push_back(p.stage);
    monotonic &= p.index >= lastIndex && p.index < p.total;
    lastIndex = p.index;
  });
  REQUIRE(result.ok());
  CHECK(monotonic);
  REQUIRE(seen.size() > 10);
  CHECK(seen.front() == "validate");
  CHECK(seen.back() == "record");
  auto has = [&](const std::string& s) { return std::find(seen.begin(), seen.end(), s) != seen.end(); };
  CHECK(has("passes: cse done"));
  CHECK(has("passes: dce done"));
  CHECK(has("map"));
  for (const char* stage : {"lower", "place", "route", "bitfiles"}) CHECK(has(stage));

  std::atomic<bool> cancel{true};
  o.outputFolder = dir / "cancelled";
  auto cancelled = driver::compile(o, {}, &cancel);
  REQUIRE(!cancelled.ok());
  CHECK(cancelled.error().message().find("cancelled") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "cancelled/mlp.pef"));
}
