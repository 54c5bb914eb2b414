// Issue 35: `dfc inspect --chip SECTION` prints the chip model of the
// section's bitfile (analysis/ChipModel.h) as text or writes it as SVG; a
// section the PEF does not have is one error naming it, exit status 2.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "CompileForTest.h"
#include "analysis/ChipModel.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("dfc inspect --chip prints the section's chip, --svg writes it, a bad section exits 2", "[e2e][chip][cli]") {
  test::ScratchDir dir("chip-cli");
  const std::string path = test::compilePef(dir, "lenet", 8, 0, "lenet");
  auto pef = pef::readPef(path, pef::PefUse::View);
  REQUIRE(pef.ok());
  REQUIRE_FALSE(pef->plan.sections.empty());
  const std::string section = pef->plan.sections.back().name;
  auto chip = analysis::chipModel(*pef, section);
  REQUIRE(chip.ok());
  REQUIRE(chip->capacity > 0);  // this compile recorded the routed network

  auto text = test::runDfc("inspect --chip " + section + " " + path);
  REQUIRE(text.status == 0);
  CHECK(text.output == analysis::formatChip(*chip));

  const std::string svgPath = dir / "chip.svg";
  auto svg = test::runDfc("inspect --chip " + section + " --svg " + svgPath + " " + path);
  REQUIRE(svg.status == 0);
  std::ifstream in(svgPath);
  std::stringstream written;
  written << in.rdbuf();
  CHECK(written.str() == analysis::chipSvg(*chip));
  CHECK(count(written.str(), "<line") == chip->links.size());

  auto bad = test::runDfc("inspect --chip no_such_section " + path);
  CHECK(bad.status == 2);
  CHECK(count(bad.output, "\n") == 1);  // one line
  CHECK_THAT(bad.output, Catch::Contains("no section 'no_such_section'"));

  auto stray = test::runDfc("inspect --svg x.svg " + path);
  CHECK(stray.status == 2);
  CHECK_THAT(stray.output, Catch::Contains("--svg goes with --chip"));
}
