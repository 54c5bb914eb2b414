// dfc and the compiler knob table: `dfc inspect --config` without a PEF lists
// every knob; a value out of range is bad input naming file, line and key;
// --mac-v2 compiles and says so in the log.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "driver/compile/CompilerConfig.h"
#include "e2e/TestEnv.h"

using namespace dfc;
using test::runDfc;

TEST_CASE("dfc inspect --config without a PEF prints the knob table", "[e2e][cli][config]") {
  auto r = runDfc("inspect --config");
  REQUIRE(r.status == 0);
  CHECK(r.output == driver::compilerKnobTable());
  CHECK(r.output.find("mapping.max_section_ops        integer") != std::string::npos);
}

TEST_CASE("dfc refuses a knob value out of range with exit 2, naming file, line and key", "[e2e][cli][config]") {
  test::ScratchDir dir("knob-range");
  std::ofstream(dir / "knobs.yaml") << "mapping:\n  max_section_ops: 4\ncost:\n  target_cycles: 0\n";
  auto r = runDfc("compile --model lenet --db - --compiler-configs-file " + (dir / "knobs.yaml") + " --output-folder " +
                  (dir / "o"));
  CHECK(r.status == 2);
  CHECK(r.output.find("knobs.yaml:4: key 'cost.target_cycles': expected a number in [1, ") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "o"));
}

TEST_CASE("dfc compile --mac-v2 compiles on the legacy mapping path", "[e2e][cli][legacy]") {
  test::ScratchDir dir("mac-v2-cli");
  auto r = runDfc("compile --model logreg -o0 --db - --mac-v2 --output-folder " + (dir / "o"));
  REQUIRE(r.status == 0);
  std::ifstream log(dir / "o/logreg_compile.log");
  REQUIRE(log);
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  CHECK(text.find("--mac-v2: legacy mapping path") != std::string::npos);
}
