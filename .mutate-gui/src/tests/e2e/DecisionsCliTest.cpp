// dfc compile --mac-human-decision [--model-parallel]: help says what they do,
// a bad or impossible decisions file exits 2 naming file:line:key and writes
// nothing, and dfc inspect shows the decisions a PEF was compiled with.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "TestEnv.h"

using namespace dfc;
using test::runDfc;

TEST_CASE("dfc compile --help lists --mac-human-decision and --model-parallel as working flags") {
  auto help = runDfc("compile --help --debug");
  REQUIRE(help.status == 0);
  const size_t notYet = help.output.find("not implemented yet");
  const size_t decision = help.output.find("--mac-human-decision FILE");
  const size_t parallel = help.output.find("--model-parallel");
  REQUIRE(decision != std::string::npos);
  REQUIRE(parallel != std::string::npos);
  CHECK(help.output.find("cut_before", decision) != std::string::npos);
  if (notYet != std::string::npos) {
    CHECK(decision < notYet);
    CHECK(parallel < notYet);
  }
  auto plain = runDfc("compile --help");
  CHECK(plain.output.find("--mac-human-decision") != std::string::npos);
}

TEST_CASE("dfc refuses a bad or impossible decisions file with exit 2, naming file, line and key, writing nothing") {
  test::ScratchDir dir("cli-decisions");
  std::ofstream(dir / "typo.yaml") << "- together: conv1/*\n  role: forward\n- cut_befor: fc1/matmul\n";
  auto r = runDfc("compile --model lenet -b 4 --db - --mac-human-decision " + (dir / "typo.yaml") +
                  " --output-folder " + (dir / "o"));
  CHECK(r.status == 2);
  CHECK(r.output.find("typo.yaml:3: unknown key 'cut_befor' (known: together, cut_before,") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "o"));

  std::ofstream(dir / "none.yaml") << "- together: h.0/mlp/*\n";
  r = runDfc("compile --model lenet -b 4 --db - --mac-human-decision " + (dir / "none.yaml") + " --output-folder " +
             (dir / "n"));
  CHECK(r.status == 2);
  CHECK(r.output.find("none.yaml:1: key 'together': 'h.0/mlp/*' matches no operator") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "n/lenet.pef"));

  r = runDfc("compile --model lenet --model-parallel --n-chips 2 --db -");
  CHECK(r.status == 2);
  CHECK(r.output.find("--model-parallel requires a human decision file") != std::string::npos);

  r = runDfc("compile --model lenet --db - --mac-human-decision " + (dir / "missing.yaml"));
  CHECK(r.status == 2);
  CHECK(r.output.find("missing.yaml") != std::string::npos);
}

TEST_CASE("dfc inspect shows the decisions and chips a PEF was compiled with") {
  test::ScratchDir dir("cli-decisions-inspect");
  std::ofstream(dir / "d.yaml") << "- together: [conv1/conv2d, conv1/bias_add]\n- nodes: fc*\n  chip: 1\n";
  auto r = runDfc("compile --model lenet -b 4 -o0 --db - --n-chips 2 --model-parallel --mac-human-decision " +
                  (dir / "d.yaml") + " --output-folder " + (dir / "o") + " --pef-name mp");
  REQUIRE(r.status == 0);
  auto inspect = runDfc("inspect " + (dir / "o/mp.pef"));
  REQUIRE(inspect.status == 0);
  CHECK(inspect.output.find("decisions from " + (dir / "d.yaml") + " (model parallel over 2 chips):") !=
        std::string::npos);
  CHECK(inspect.output.find("line   1  together   [conv1/conv2d, conv1/bias_add]: 2 operators, sections ") !=
        std::string::npos);
  CHECK(inspect.output.find("line   2  chip       fc* -> chip 1: ") != std::string::npos);
  CHECK(inspect.output.find("values cross chips") != std::string::npos);
}
