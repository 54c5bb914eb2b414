// Issue 35 "why here": every section boundary of the zoo models at -o0, -o1
// and -o3 has a recorded reason (none "not recorded"), the reasons survive the
// PEF, and `dfc inspect --why` prints one line per boundary.
#include <catch2/catch.hpp>

#include "TestEnv.h"
#include "analysis/SectionBoundaries.h"
#include "driver/compile/CompileToPlan.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

struct ZooCase {
  const char* model;
  partition::OptLevel level;
  bool hypersections;
};

std::string caseName(const ZooCase& c) {
  return std::string(c.model) + " -" + std::string(partition::optLevelName(c.level)) +
         (c.hypersections ? " --enable-hypersection" : "");
}

}  // namespace

TEST_CASE("every section boundary of the zoo models at -o0, -o1 and -o3 has a recorded reason", "[e2e][why]") {
  using L = partition::OptLevel;
  std::vector<ZooCase> cases;
  for (const char* model : {"lenet", "gpt2-mini", "resnet18"})
    for (L level : {L::O0, L::O1, L::O3}) cases.push_back({model, level, false});
  cases.push_back({"gpt2-mini", L::O3, true});
  cases.push_back({"llama", L::O3, true});  // the Llama-7B training shape, as scripts/screenshots.sh compiles it
  test::ScratchDir dir("why-zoo");
  for (const ZooCase& c : cases) {
    INFO(caseName(c));
    driver::CompileOptions o;
    o.model = c.model;
    o.level = c.level;
    o.enableHypersection = c.hypersections;
    o.batchSize = std::string(c.model) == "llama" ? 1 : 8;
    o.dbPath = "-";
    o.outputFolder = dir / "out";
    auto pef = driver::compileToPlan(o);
    REQUIRE(pef.ok());
    const auto boundaries = analysis::sectionBoundaries(pef->plan);
    CHECK(boundaries.size() + 1 == pef->plan.sections.size());
    int unrecorded = 0;
    for (const auto& b : boundaries) unrecorded += b.cut.kind == partition::CutKind::None || b.cut.detail.empty();
    CHECK(unrecorded == 0);
  }
}

TEST_CASE("dfc inspect --why prints each boundary of a compiled PEF with its reason", "[e2e][why][cli]") {
  test::ScratchDir dir("why-cli");
  auto r = test::runDfc("compile --db - --model lenet -o0 -b 8 --arch sn30 --pef-name lenet --output-folder " +
                        (dir / "out"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto pef = pef::readPef(dir / "out/lenet.pef", pef::PefUse::View);
  REQUIRE(pef.ok());
  const auto boundaries = analysis::sectionBoundaries(pef->plan);
  REQUIRE(boundaries.size() > 2);
  for (const auto& b : boundaries) CHECK(b.cut.kind != partition::CutKind::None);
  auto why = test::runDfc("inspect --why " + (dir / "out/lenet.pef"));
  REQUIRE(why.status == 0);
  CHECK(why.output == analysis::formatBoundaries(pef->plan));
  CHECK_THAT(why.output, Catch::StartsWith(std::to_string(boundaries.size()) + " section boundaries"));
  CHECK_THAT(why.output, Catch::Contains("operator_mode") && Catch::Contains("role_change"));
}
