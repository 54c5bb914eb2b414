// --compiler-configs-file: the knobs reach the compiler, the effective
// configuration is stored in the PEF, and a bad file is refused naming the
// file, the line and the key.
#include <catch2/catch.hpp>
#include <fstream>

#include "driver/compile/Compiler.h"
#include "driver/compile/CompilerConfig.h"
#include "e2e/TestEnv.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

std::string loadError(const std::string& path) {
  auto c = driver::loadCompilerConfig(path);
  REQUIRE(!c);
  CHECK(c.error().kind() == ErrorKind::BadInput);
  return c.error().message();
}

}  // namespace

TEST_CASE("a compiler configs file sets knobs, flat or nested, in YAML or JSON", "[driver][config]") {
  test::ScratchDir dir("config");
  auto yaml =
      driver::loadCompilerConfig(dir.write("k.yaml", "placer:\n  max_moves: 2000\nrouter.hist_fac: 0.25\n"));
  REQUIRE(yaml.ok());
  CHECK(yaml->link.placer.maxMoves == 2000);
  CHECK(yaml->link.router.histFac == 0.25);
  CHECK(yaml->link.router.maxIterations == kernelc::RouterOptions{}.maxIterations);  // untouched
  auto json =
      driver::loadCompilerConfig(dir.write("k.json", R"({"placer": {"anneal": false}, "router.box_margin": 5})"));
  REQUIRE(json.ok());
  CHECK(!json->link.placer.anneal);
  CHECK(json->link.router.boxMargin == 5);
  CHECK(driver::compilerConfigJson(*json).find("\"router.box_margin\":5") != std::string::npos);
}

TEST_CASE("a bad compiler configs file names the file, line and key", "[driver][config]") {
  test::ScratchDir dir("config-bad");
  std::string unknown = loadError(dir.write("u.yaml", "placer:\n  max_moves: 10\n  max_moovs: 3\n"));
  CHECK(unknown.find("u.yaml:3: unknown key 'placer.max_moovs'") != std::string::npos);
  CHECK(unknown.find("(known: fusion.match_steps_per_anchor") != std::string::npos);
  CHECK(unknown.find("placer.anneal") != std::string::npos);
  CHECK(unknown.find("router.hist_fac") != std::string::npos);
  CHECK(loadError(dir.write("r.yaml", "\nrouter.max_iterations: 0\n"))
            .find("r.yaml:2: key 'router.max_iterations': expected a whole number in [1, 1000], got '0'") !=
        std::string::npos);
  CHECK(loadError(dir.write("f.yaml", "placer.seed: 1.5\n")).find("f.yaml:1: key 'placer.seed'") !=
        std::string::npos);
  CHECK(loadError(dir.write("s.yaml", "placer.inner_num: lots\n")).find("got 'lots'") != std::string::npos);
  CHECK(loadError(dir.write("l.yaml", "- placer.seed\n")).find("l.yaml:1: expected a map") != std::string::npos);
  CHECK(loadError(dir.write("y.yaml", "placer: {max_moves: 3\n")).find("y.yaml:") != std::string::npos);
  CHECK(loadError(dir / "missing.yaml").find("missing.yaml") != std::string::npos);
}

TEST_CASE("compiler knobs change the compile and travel in the PEF", "[driver][config]") {
  test::ScratchDir dir("config-compile");
  driver::CompileOptions o;
  o.model = "lenet";
  o.level = partition::OptLevel::O0;
  o.batchSize = 4;
  o.dbPath = "-";
  o.outputFolder = dir / "default";
  auto annealed = driver::compile(o);
  REQUIRE(annealed.ok());
  o.compilerConfigsFile = dir.write("greedy.yaml", "placer:\n  anneal: false\n");
  o.outputFolder = dir / "greedy";
  auto greedy = driver::compile(o);
  REQUIRE(greedy.ok());
  CHECK(greedy->placedHops > annealed->placedHops);  // greedy seeding only: longer wires
  auto pef = pef::readPef(greedy->pefPath);
  REQUIRE(pef.ok());
  CHECK(pef->meta.compilerConfig.find("\"placer.anneal\":0") != std::string::npos);
  auto plain = pef::readPef(annealed->pefPath);
  REQUIRE(plain.ok());
  CHECK(plain->meta.compilerConfig.empty());  // defaults: nothing stored, the PEF as before

  o.compilerConfigsFile = dir.write("bad.yaml", "placer.frobnicate: 1\n");
  o.outputFolder = dir / "bad";
  auto refused = driver::compile(o);
  REQUIRE(!refused);
  CHECK(refused.error().message().find("bad.yaml:1: unknown key 'placer.frobnicate'") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "bad"));  // refused before any work
}

TEST_CASE("a knob's number is a plain YAML number, booleans only for switches, each knob once", "[driver][config][hostile]") {
  test::ScratchDir dir("config-types");
  for (const char* text : {"router:\n  max_iterations: true\n", "router:\n  max_iterations: '5'\n",
                           "router:\n  max_iterations: !!str 5\n", "router:\n  max_iterations: \"5\"\n"}) {
    INFO(text);
    CHECK_THAT(loadError(dir.write("t.yaml", text)),
               Catch::Contains("t.yaml:2: key 'router.max_iterations': expected a whole number in [1, 1000]"));
  }
  CHECK_THAT(loadError(dir.write("twice.yaml", "router.box_margin: 2\nrouter:\n  box_margin: 3\n")),
             Catch::EndsWith("twice.yaml:3: key 'router.box_margin' is given twice"));
  auto plain = driver::loadCompilerConfig(dir.write("ok.yaml", "router:\n  max_iterations: 5\nplacer.anneal: true\n"));
  REQUIRE(plain.ok());
  CHECK(plain->link.router.maxIterations == 5);
  CHECK(plain->link.placer.anneal);
  auto budget = driver::loadCompilerConfig(dir.write("budget.yaml", "router.time_limit_s: 2.5\n"));
  REQUIRE(budget.ok());
  CHECK(budget->link.routeSeconds == 2.5);
}
