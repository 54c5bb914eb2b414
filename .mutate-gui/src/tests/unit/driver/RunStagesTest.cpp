// The run as a stage table: every stage once, in order, timed; a refused
// option stops it before the PEF is read; a failed run is finished in the store.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>

#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "e2e/TestEnv.h"
#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"

using namespace dfc;

namespace {

std::string compileLogreg(const test::ScratchDir& dir) {
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.outputFolder = dir / "out";
  c.dbPath = dir / "runs.sqlite";
  auto compiled = driver::compile(c);
  REQUIRE(compiled.ok());
  return compiled->pefPath;
}

driver::RunOptions smallRun(const test::ScratchDir& dir, const std::string& pef) {
  driver::RunOptions r;
  r.pefPath = pef;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = dir / "runs.sqlite";
  r.trainLimit = 64;
  r.testLimit = 64;
  return r;
}

}  // namespace

TEST_CASE("a run goes through its stages in order, each timed") {
  test::ScratchDir dir("run-stages");
  const std::vector<std::string> expected = {"validate", "load-pef", "load-data", "open-store",
                                             "train",    "evaluate", "decode",    "write-trace"};
  CHECK(driver::runStageNames() == expected);
  auto result = driver::run(smallRun(dir, compileLogreg(dir)));
  REQUIRE(result.ok());
  std::vector<std::string> timed;
  for (const auto& [name, ms] : result->stageMs) {
    timed.push_back(name);
    CHECK(ms >= 0);
  }
  CHECK(timed == expected);
  CHECK(result->steps == 2);
  CHECK(std::filesystem::exists(result->tracePath));
}

TEST_CASE("a refused run option stops the run before the PEF is read, a failed run is finished in the store") {
  test::ScratchDir dir("run-refused");
  std::string pef = compileLogreg(dir);
  auto options = smallRun(dir, pef);
  options.epochs = 0;
  auto refused = driver::run(options);
  REQUIRE(!refused);
  CHECK(refused.error().message().find("--num-epochs") != std::string::npos);

  options = smallRun(dir, pef);
  options.dataFolder = dir / "nowhere";  // fails loading data, before the store
  REQUIRE(!driver::run(options));

  options = smallRun(dir, pef);
  options.logEvery = 1;
  std::atomic<bool> cancel{false};
  // Cancelled at the first loss line: during training, after the store has the run.
  auto failed = driver::run(options, [&](const std::string&) { cancel = true; }, &cancel);
  REQUIRE(!failed);
  CHECK(failed.error().message() == "run cancelled");
  auto store = profile::RunStore::open(dir / "runs.sqlite");
  REQUIRE(store.ok());
  auto runs = store->listRuns();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 1);  // only the run that got as far as the store
  CHECK(runs->front().status == "failed");
}

TEST_CASE("the trace's process id comes from the rank, rank 0 keeps pid 1 and its name", "[driver][rank]") {
  test::ScratchDir dir("run-rank");
  const std::string pef = compileLogreg(dir);
  for (int rank : {0, 3}) {
    INFO("rank " << rank);
    auto options = smallRun(dir, pef);
    options.dbPath = "-";
    options.rank = rank;
    options.tracePath = dir / ("rank" + std::to_string(rank) + ".json");
    auto result = driver::run(options);
    REQUIRE(result.ok());
    auto trace = profile::readChromeTrace(result->tracePath);
    REQUIRE(trace.ok());
    const int64_t pid = rank + 1;
    const std::string label = "logreg (sn30, -o0, host CPU)";
    REQUIRE(trace->processNames.size() == 1);
    CHECK(trace->processNames.begin()->first == pid);
    CHECK(trace->processNames.begin()->second == (rank == 0 ? label : label + " rank 3"));
    REQUIRE(!trace->events.empty());
    for (const auto& e : trace->events) CHECK(e.pid == pid);
  }
  auto negative = smallRun(dir, pef);
  negative.rank = -1;
  REQUIRE(!driver::run(negative));
}
