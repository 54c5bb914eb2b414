// Bad input gets one clear error naming the culprit (exit status 2 in dfc),
// never a crash and never a half-written file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"

using namespace dfc;

using test::runDfc;

TEST_CASE("dfc refuses bad flags and models with exit status 2 and names the culprit") {
  test::ScratchDir dir("badflags");
  auto r = runDfc("compile --model nosuchmodel --output-folder " + (dir / "o") + " --db -");
  CHECK(r.status == 2);
  CHECK(r.output.find("nosuchmodel") != std::string::npos);

  r = runDfc("compile --model lenet --frobnicate");
  CHECK(r.status == 2);
  CHECK(r.output.find("--frobnicate") != std::string::npos);

  r = runDfc("compile --model lenet -b zero");
  CHECK(r.status == 2);
  CHECK(r.output.find("-b/--batch-size") != std::string::npos);

  r = runDfc("compile --model lenet -o1 --o1-rule-list nosuchrules.yaml --db - --output-folder " + (dir / "o1"));
  CHECK(r.status == 2);
  CHECK(r.output.find("nosuchrules.yaml") != std::string::npos);

  r = runDfc("compile --model gpt2-mini --compiler-mode vision --db - --output-folder " + (dir / "mode"));
  CHECK(r.status == 2);
  CHECK(r.output.find("--compiler-mode 'vision'") != std::string::npos);
  CHECK(r.output.find("nlp") != std::string::npos);

  r = runDfc("run --pef " + (dir / "missing.pef"));
  CHECK(r.status == 2);
  CHECK(r.output.find("missing.pef") != std::string::npos);

  r = runDfc("bogus");
  CHECK(r.status == 2);
}

TEST_CASE("a corrupted PEF is refused by run with the file named") {
  test::ScratchDir dir("corrupt");
  driver::CompileOptions c;
  c.model = "logreg";
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  REQUIRE(compiled);
  {
    std::fstream f(compiled->pefPath, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(compiled->pefPath) / 2));
    char byte = 0;
    f.read(&byte, 1);
    f.seekp(-1, std::ios::cur);
    byte = static_cast<char>(byte ^ 0x5a);
    f.write(&byte, 1);
  }
  auto r = runDfc("run --db - --pef " + compiled->pefPath);
  CHECK(r.status == 2);
  CHECK(r.output.find(compiled->pefPath) != std::string::npos);
  CHECK(r.output.find("Segmentation") == std::string::npos);
}

TEST_CASE("a data folder without the dataset is refused before any training") {
  test::ScratchDir dir("nodata");
  driver::CompileOptions c;
  c.model = "logreg";
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  REQUIRE(compiled);
  driver::RunOptions r;
  r.pefPath = compiled->pefPath;
  r.dataFolder = dir / "empty";
  r.dbPath = "-";
  auto result = driver::run(r);
  REQUIRE(!result);
  CHECK(result.error().message().find("empty") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "out/logreg_chrome_tracing_report.json"));
}

TEST_CASE("dfc refuses a compiler configs file with an unknown key, naming file, line and key, writing nothing") {
  test::ScratchDir dir("badconfig");
  std::ofstream(dir / "knobs.json") << "{\n  \"placer\": {\"max_moves\": 100},\n  \"router\": {\"tracks\": 4}\n}\n";
  auto r = runDfc("compile --model lenet --db - --compiler-configs-file " + (dir / "knobs.json") + " --output-folder " +
                  (dir / "o"));
  CHECK(r.status == 2);
  CHECK(r.output.find("knobs.json:3: unknown key 'router.tracks' (known: fusion.match_steps_per_anchor") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "o"));
  auto ok = runDfc("compile --model logreg -o0 --db - --compiler-configs-file " + (dir / "knobs.json") + "x");
  CHECK(ok.status == 2);
  CHECK(ok.output.find("knobs.jsonx") != std::string::npos);
}
