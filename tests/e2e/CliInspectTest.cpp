// `dfc inspect` and `dfc report` on a small PEF, against golden text in
// tests/data/cli/. The PEF is compiled here (logreg, -o1, batch 8, sn30), so
// a change to what the compiler decides or to how the commands print shows up
// as a line-by-line difference. After an intended change, run this test with
// DFC_GOLDEN_UPDATE=1 to rewrite the files, and review them before committing.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "TestEnv.h"
#include "driver/report/SectionReport.h"
#include "support/FileUtil.h"

using namespace dfc;
using test::runDfc;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Compares `got` with the golden file line by line (or rewrites it under DFC_GOLDEN_UPDATE).
void checkGolden(const std::string& got, const std::string& name) {
  const std::string path = std::string(DFC_TEST_DATA_DIR) + "/cli/" + name;
  if (std::getenv("DFC_GOLDEN_UPDATE")) {
    std::ofstream(path, std::ios::binary) << got;
    WARN("rewrote " << path);
    return;
  }
  auto want = support::readFile(path);
  INFO(path);
  REQUIRE(want);
  const auto g = lines(got), w = lines(*want);
  for (size_t i = 0; i < std::min(g.size(), w.size()); ++i) {
    INFO("line " << i + 1);
    CHECK(g[i] == w[i]);
  }
  CHECK(g.size() == w.size());
}

std::string compileLogreg(const test::ScratchDir& dir) {
  auto r = runDfc("compile --db - --model logreg -o1 -b 8 --arch sn30 --pef-name logreg --output-folder " + (dir / "out"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  return dir / "out/logreg.pef";
}

}  // namespace

TEST_CASE("dfc inspect prints a PEF's sections, placement and hypersections", "[e2e][cli]") {
  test::ScratchDir dir("cli-inspect");
  const std::string pef = compileLogreg(dir);
  auto r = runDfc("inspect " + pef);
  REQUIRE(r.status == 0);
  // The first line carries the compiler version and the compile's time, the
  // second the content hash (of chunks that hold the compile's timings).
  const std::string first = r.output.substr(0, r.output.find('\n'));
  CHECK(first.rfind("PEF logreg (format 1.4, dfc ", 0) == 0);
  const size_t secondEnd = r.output.find('\n', first.size() + 1);
  const std::string second = r.output.substr(first.size() + 1, secondEnd - first.size() - 1);
  CHECK_THAT(second, Catch::Matches("content hash [0-9a-f]{16} \\(a run's trace records it as pef_hash\\)"));
  checkGolden(r.output.substr(secondEnd + 1), "logreg_o1.inspect.txt");
  // The same through --pef, and a missing PEF is bad input.
  CHECK(runDfc("inspect --pef " + pef).output == r.output);
  auto missing = runDfc("inspect " + (dir / "nope.pef"));
  CHECK(missing.status == 2);
  CHECK(missing.output.find("nope.pef") != std::string::npos);
}

TEST_CASE("dfc report writes section_report.csv with the shared header", "[e2e][cli]") {
  test::ScratchDir dir("cli-report");
  const std::string pef = compileLogreg(dir);
  auto r = runDfc("report --db - " + pef);
  REQUIRE(r.status == 0);
  CHECK(r.output == "wrote " + (dir / "out/section_report.csv") + " (9 sections, no recorded run)\n");
  auto csv = support::readFile(dir / "out/section_report.csv");
  REQUIRE(csv);
  CHECK(csv->substr(0, csv->find('\n')) == driver::sectionReportHeader());
  checkGolden(*csv, "logreg_o1.section_report.csv");
  // -o chooses the file; one that cannot be written is named.
  CHECK(runDfc("report --db - -o " + (dir / "r.csv") + " " + pef).status == 0);
  CHECK(support::readFile(dir / "r.csv").value() == *csv);
  auto bad = runDfc("report --db - -o " + (dir / "r.csv/under_a_file.csv") + " " + pef);
  CHECK(bad.status == 2);
  CHECK(bad.output.find(dir / "r.csv") != std::string::npos);
}

TEST_CASE("dfc inspect lists the attentions that run as one fused kernel with their tiles", "[e2e][cli][inspect]") {
  test::ScratchDir dir("inspect-attention");
  auto compiled = runDfc("compile --db - --model gpt2-mini -o3 --pef-name g3 --output-folder " + (dir / "g3"));
  INFO(compiled.output);
  REQUIRE(compiled.status == 0);
  auto r = runDfc("inspect " + (dir / "g3/g3.pef"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("fused attention on the host (FlashAttention-style") != std::string::npos);
  CHECK(r.output.find(": 2 in 2 section(s)") != std::string::npos);
  // Both layers' attention, forward in section 0 and backward in 1, 64 queries x 128 keys a tile.
  for (const char* layer : {"h.0/attn/softmax", "h.1/attn/softmax"}) {
    const size_t at = r.output.find(layer);
    REQUIRE(at != std::string::npos);
    const std::string line = r.output.substr(r.output.rfind('\n', at) + 1, r.output.find('\n', at) - r.output.rfind('\n', at) - 1);
    CHECK(line.find("0+1") != std::string::npos);
    CHECK(line.find("64x128") != std::string::npos);
    CHECK(line.find("causal") != std::string::npos);
  }
  // One op per section (-o0): nothing runs fused, so nothing is listed.
  auto o0 = runDfc("compile --db - --model gpt2-mini -o0 --pef-name g0 --output-folder " + (dir / "g0"));
  REQUIRE(o0.status == 0);
  CHECK(runDfc("inspect " + (dir / "g0/g0.pef")).output.find("fused attention") == std::string::npos);
}
