// Issue 15: an operator too big for a section compiles tiled and trains to the
// untiled losses; routing over capacity is refused unless --allow-overuse.
#include <catch2/catch.hpp>
#include <filesystem>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

// sn10's unit grid with PMUs of 256 bytes: gpt2-mini's weights need more PMUs than a section has.
constexpr const char* kSmallPmuArch = R"(name: small-pmu
tiles: 1
pcus_per_tile: 160
pmus_per_tile: 160
pmu_bytes: 256
pcu_lanes: 32
pcu_stages: 6
clock_ghz: 1.25
peak_tflops: 80
ddr_gbps: 150
hbm_gbps: 0
pcie_gbps: 32
network_hop_ns: 2
grid_rows: 16
grid_cols: 20
network_link_gbps: 50
)";

struct Trained {
  size_t tiled = 0;
  std::string pefPath;
  std::vector<double> losses;
};

Trained compileAndTrain(const test::ScratchDir& dir, const std::string& arch, const std::string& name) {
  driver::CompileOptions c;
  c.model = "gpt2-mini";
  c.modelParams = {{"seq_len", 16}};
  c.batchSize = 4;
  c.arch = arch;
  c.outputFolder = dir / name;
  c.pefName = name;
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  Trained t;
  t.pefPath = compiled->pefPath;
  auto pef = pef::readPef(t.pefPath);
  REQUIRE(pef.ok());
  for (const auto& s : pef->plan.sections) t.tiled += s.tiling.size();
  driver::RunOptions r;
  r.pefPath = t.pefPath;
  r.dbPath = "-";
  r.trainLimit = 4 * 12;
  r.testLimit = 4;
  auto run = driver::run(r);
  if (!run) FAIL(run.error().message());
  REQUIRE(run->steps == 12);
  t.losses = {*run->firstLoss, *run->finalLoss};
  return t;
}

}  // namespace

TEST_CASE("a model forced to tile by a small arch file trains to the same losses as untiled") {
  test::ScratchDir dir("tiling");
  const std::string small = dir.write("small-pmu.yaml", kSmallPmuArch);
  Trained tiled = compileAndTrain(dir, small, "tiled");
  Trained whole = compileAndTrain(dir, "sn10", "whole");
  CHECK(tiled.tiled > 0);
  CHECK(whole.tiled == 0);
  REQUIRE(tiled.losses.size() == 2);  // the first and the 12th step
  REQUIRE(whole.losses.size() == tiled.losses.size());
  for (size_t i = 0; i < tiled.losses.size(); ++i) CHECK(tiled.losses[i] == Approx(whole.losses[i]).epsilon(1e-5));
  CHECK(tiled.losses.back() < tiled.losses.front());
  auto inspect = test::runDfc("inspect " + tiled.pefPath);
  CHECK(inspect.status == 0);
  CHECK_THAT(inspect.output, Catch::Contains("tiled operators") && Catch::Contains("passes of") &&
                                 Catch::Contains("host runtime runs each operator whole"));
}

TEST_CASE("routing left over capacity fails the compile with exit 2 and no PEF, unless --allow-overuse") {
  test::ScratchDir dir("overuse");
  // One route per link and one router pass: more nets than the links carry.
  const std::string config = dir.write("tight.yaml", "router.link_tracks: 1\nrouter.max_iterations: 1\n");
  const std::string common = "compile --model gpt2-mini --seq-len 16 -b 4 --arch sn10 --db - --compiler-configs-file " +
                             config + " --output-folder " + dir.path().string();
  auto refused = test::runDfc(common + " --pef-name refused");
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("links over capacity") && Catch::Contains("in section s") &&
                                 Catch::Contains("no PEF written"));
  CHECK_FALSE(std::filesystem::exists(dir / "refused.pef"));
  auto allowed = test::runDfc(common + " --pef-name allowed --allow-overuse");
  CHECK(allowed.status == 0);
  CHECK_THAT(allowed.output, Catch::Contains("written because of --allow-overuse"));
  CHECK(std::filesystem::exists(dir / "allowed.pef"));
  auto help = test::runDfc("compile --help --debug");
  CHECK_THAT(help.output, Catch::Contains("--allow-overuse"));
  CHECK_THAT(test::runDfc("compile --help").output, !Catch::Contains("--allow-overuse"));
}
