// driver::run with --data-parallel over an in-process group: two ranks as
// threads of this process, so the run's data-parallel path (shards, loss
// average, weight check, trace merge, store metrics) runs without mpirun,
// in every build including the sanitizer one.
#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "../../e2e/TestEnv.h"
#include "dist/Communicator.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "profile/ChromeTrace.h"
#include "profile/TraceValidator.h"
#include "support/FileUtil.h"

using namespace dfc;

TEST_CASE("two in-process ranks train a data-parallel lenet: identical weights, one merged trace with both ranks",
          "[dp]") {
  test::ScratchDir dir("dp-run");
  driver::CompileOptions c;
  c.model = "lenet";
  c.batchSize = 8;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  c.dataParallel = true;
  c.worldSize = 2;
  auto compiled = driver::compile(c);
  REQUIRE(compiled.ok());

  dist::InProcessGroup group(2);
  std::vector<Expected<driver::RunResult>> results(2, makeError("not run"));
  std::vector<std::vector<std::string>> lines(2);
  auto rank = [&](int r) {
    driver::RunOptions o;
    o.pefPath = compiled->pefPath;
    o.dataFolder = test::kFashionMnist;
    o.dbPath = "-";
    o.threads = 1;
    o.trainLimit = 8 * 2 * 10;  // 10 steps of a global batch of 16
    o.testLimit = 16;
    o.logEvery = 1;
    o.dataParallel = true;
    o.communicator = &group.rank(r);
    o.tracePath = dir / ("trace" + std::to_string(r) + ".json");
    results[static_cast<size_t>(r)] = driver::run(o, [&, r](const std::string& l) { lines[static_cast<size_t>(r)].push_back(l); });
  };
  std::thread other(rank, 1);
  rank(0);
  other.join();
  for (auto& r : results) REQUIRE(r.ok());
  const driver::RunResult& root = *results[0];
  CHECK(root.worldSize == 2);
  CHECK(root.steps == 10);
  CHECK(root.weightsChecked);
  CHECK(root.rankSamplesPerSecond.size() == 2);
  CHECK(root.allreduceCalls == 10);  // one bucket per step
  CHECK(root.allreduceBytes > 0);
  CHECK(lines[1].empty());     // rank 0 alone prints
  CHECK(lines[0].size() >= 10);

  // Rank 0 wrote the merged trace; rank 1 wrote none.
  CHECK_FALSE(std::filesystem::exists(dir / "trace1.json"));
  auto json = support::readFile(dir / "trace0.json");
  REQUIRE(json.ok());
  REQUIRE(profile::validateChromeTraceJson(*json).ok());
  auto trace = profile::parseChromeTrace(*json, "trace0.json");
  REQUIRE(trace.ok());
  std::set<int64_t> pids;
  for (const auto& e : trace->events)
    if (e.cat == "reduce") pids.insert(e.pid);
  CHECK(pids == std::set<int64_t>{1, 2});
  CHECK(trace->processNames.at(2) == "rank 1 (host)");
}
