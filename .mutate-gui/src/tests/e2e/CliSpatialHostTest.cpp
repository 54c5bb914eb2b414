// The command line of issue 14's items 6 and 8: `dfc compile --num-spatial-batches`
// (shown by `dfc inspect`, refused with exit 2 where it cannot apply) and
// `dfc inspect --run ID` (the host breakdown table of a stored run).
#include <catch2/catch.hpp>

#include "TestEnv.h"

using namespace dfc;
using test::runDfc;

TEST_CASE("dfc compile --num-spatial-batches: inspect shows the bands, what does not fit is refused with exit 2") {
  test::ScratchDir dir("cli-spatial");
  const std::string out = " --db - --output-folder " + (dir / "out");
  auto ok = runDfc("compile --model lenet -b 8 --num-spatial-batches 2 --pef-name lenet2" + out);
  INFO(ok.output);
  REQUIRE(ok.status == 0);
  auto shown = runDfc("inspect " + (dir / "out") + "/lenet2.pef");
  INFO(shown.output);
  CHECK(shown.output.find("spatial tiling (--num-spatial-batches 2): 2 bands") != std::string::npos);
  CHECK(shown.output.find("per band: 3 2;") != std::string::npos);
  CHECK(shown.output.find("halo recompute") != std::string::npos);

  auto tooMany = runDfc("compile --model lenet -b 8 --num-spatial-batches 6 --pef-name t" + out);
  CHECK(tooMany.status == 2);
  CHECK(tooMany.output.find("more tiles than the 5 rows") != std::string::npos);
  auto flat = runDfc("compile --model mlp -b 8 --num-spatial-batches 2 --pef-name m" + out);
  CHECK(flat.status == 2);
  CHECK(flat.output.find("no spatial prefix") != std::string::npos);
  auto help = runDfc("compile --help --debug");
  const size_t notYet = help.output.find("not implemented yet");
  CHECK(help.output.find("--num-spatial-batches N") < notYet);  // listed, and not among the refused
}

TEST_CASE("dfc inspect --run prints the stored run's host breakdown, an unknown run is exit 2") {
  test::ScratchDir dir("cli-host");
  const std::string db = " --db " + (dir / "runs.sqlite");
  auto compiled = runDfc("compile --model logreg -b 32 --pef-name logreg --output-folder " + (dir / "out") + db);
  INFO(compiled.output);
  REQUIRE(compiled.status == 0);
  auto ran = runDfc("run -p " + (dir / "out") + "/logreg.pef" + " --data-folder " + test::kFashionMnist +
                    " --train-limit 64 --test-limit 64" + db);
  INFO(ran.output);
  REQUIRE(ran.status == 0);
  auto table = runDfc("inspect --run 1" + db);
  INFO(table.output);
  CHECK(table.status == 0);
  for (const char* phase : {"run setup", "PEF load and verification", "weight materialization", "data loading",
                            "train epoch", "    data feeding", "    section dispatch overhead", "trace writing"})
    CHECK(table.output.find(phase) != std::string::npos);
  auto missing = runDfc("inspect --run 7" + db);
  CHECK(missing.status == 2);
  CHECK(missing.output.find("--run 7: no such run") != std::string::npos);
}
