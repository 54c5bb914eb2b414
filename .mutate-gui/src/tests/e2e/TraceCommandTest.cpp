// dfc trace on a real run's trace: the summary, a search with counts, a range
// aggregated by section as a table and as CSV; one clear line and exit 2 for
// a file that is not a trace or a bad flag value.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/RunTrace.h"
#include "driver/run/Runner.h"
#include "profile/ChromeTrace.h"

using namespace dfc;
using test::runDfc;

namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("dfc trace searches and aggregates a real run's trace", "[e2e][trace]") {
  test::ScratchDir dir("trace-cmd");
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  REQUIRE(compiled);
  driver::RunOptions r;
  r.pefPath = compiled->pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = "-";
  r.trainLimit = 32 * 10;
  r.testLimit = 64;
  auto run = driver::run(r);
  REQUIRE(run);
  const std::string trace = run->tracePath;

  auto summary = runDfc("trace " + trace);
  CHECK(summary.status == 0);
  CHECK(summary.output.find("whole model run") != std::string::npos);

  auto search = runDfc("trace " + trace + " --search HS");  // hypersection names: "hs3_matmul"
  REQUIRE(search.status == 0);
  CHECK(search.output.find(" slices in ") != std::string::npos);
  CHECK(search.output.find("total_us") != std::string::npos);

  auto table = runDfc("trace " + trace + " --aggregate --group-by section --row 0");
  REQUIRE(table.status == 0);
  const auto lines = linesOf(table.output);
  REQUIRE(lines.size() >= 4);  // range line, header, a section, total
  CHECK(lines[1].rfind("section", 0) == 0);
  CHECK(lines.back().rfind("total", 0) == 0);
  // Every section call of the run is on the whole-model row, each once.
  std::istringstream total(lines.back());
  std::string word;
  size_t count = 0;
  total >> word >> count;
  CHECK(static_cast<int64_t>(count) == run->sectionCalls);

  auto csv = runDfc("trace " + trace + " --aggregate --group-by hypersection --from 0 --to 1e12 --csv");
  REQUIRE(csv.status == 0);
  CHECK(linesOf(csv.output).front() == "hypersection,count,wall_us,self_us,mean_us,min_us,max_us");
}

TEST_CASE("dfc trace refuses a file that is not a trace with exit status 2", "[e2e][trace]") {
  test::ScratchDir dir("trace-bad");
  // Malformed mid-file (a missing comma); a file merely cut off loads what is complete.
  std::ofstream(dir / "broken.json") << R"({"traceEvents":[{"ph":"X","name":"a"} {"ph":"X","name":"b"}]})";
  auto r = runDfc("trace " + (dir / "broken.json") + " --aggregate");
  CHECK(r.status == 2);
  CHECK(r.output.find("broken.json") != std::string::npos);
  CHECK(r.output.find("at byte 38") != std::string::npos);
  CHECK(linesOf(r.output).size() == 1);
  std::ofstream(dir / "cut.json") << R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":)";
  r = runDfc("trace " + (dir / "cut.json"));
  CHECK(r.status == 0);
  CHECK(r.output.find("cut off") != std::string::npos);
  r = runDfc("trace " + (dir / "missing.json"));
  CHECK(r.status == 2);
  std::ofstream(dir / "ok.json") << R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]})";
  r = runDfc("trace " + (dir / "ok.json") + " --aggregate --group-by colour");
  CHECK(r.status == 2);
  CHECK(r.output.find("--group-by 'colour'") != std::string::npos);
  r = runDfc("trace " + (dir / "ok.json") + " --aggregate --from 9 --to 2");
  CHECK(r.status == 2);
}

// --trace-steps keeps the trace to a window of steps; a .json.gz name gzips it,
// and dfc trace (like dfstudio, through the same reader) reads it back.
TEST_CASE("dfc run --trace-steps records only its window, into a gzip trace when the name ends in .gz", "[e2e][trace]") {
  test::ScratchDir dir("trace-steps");
  auto compiled = runDfc("compile --db - --model logreg -o0 --pef-name lr --output-folder " + (dir / "out"));
  REQUIRE(compiled.status == 0);
  const std::string pef = dir / "out/lr.pef", trace = dir / "window.json.gz";
  auto run = runDfc("run --db - --pef " + pef + " --data-folder " + test::kFashionMnist +
                    " --train-limit 320 --test-limit 64 --trace " + trace + " --trace-steps 2:5");
  INFO(run.output);
  REQUIRE(run.status == 0);
  std::ifstream in(trace, std::ios::binary);
  const int b0 = in.get(), b1 = in.get();
  CHECK((b0 == 0x1f && b1 == 0x8b));  // gzip, not plain JSON
  auto parsed = profile::readChromeTrace(trace);
  REQUIRE(parsed);
  std::set<int64_t> steps;
  size_t calls = 0;
  for (const profile::TraceEvent& e : parsed->events) {
    if (e.tid != driver::RunTrace::kWholeRunTid || e.ph != 'X') continue;
    for (const auto& [key, value] : e.args)
      if (key == "step" && std::holds_alternative<double>(value)) {
        steps.insert(static_cast<int64_t>(std::get<double>(value)));
        ++calls;
      }
  }
  CHECK(steps == std::set<int64_t>{2, 3, 4});
  CHECK(calls % 3 == 0);  // every call of each of the three steps, none of the others
  CHECK(calls > 3);
  auto summary = runDfc("trace " + trace);
  CHECK(summary.status == 0);
  auto bad = runDfc("run --db - --pef " + pef + " --trace-steps 5:5");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--trace-steps '5:5'"));
}
