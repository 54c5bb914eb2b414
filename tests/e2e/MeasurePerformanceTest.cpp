// dfc measure-performance: throughput and step latency over many steps of
// synthetic inputs, beside the chip estimate, in a JSON summary and the store.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "TestEnv.h"
#include "driver/Compiler.h"
#include "driver/MeasurePerformance.h"
#include "profile/RunStore.h"
#include "support/FileUtil.h"

using namespace dfc;

TEST_CASE("percentiles interpolate between ranks") {
  std::vector<double> v{10, 1, 9, 2, 8, 3, 7, 4, 6, 5};  // 1..10, unsorted
  CHECK(driver::percentile(v, 50) == Approx(5.5));
  CHECK(driver::percentile(v, 90) == Approx(9.1));
  CHECK(driver::percentile(v, 99) == Approx(9.91));
  CHECK(driver::percentile(v, 0) == Approx(1));
  CHECK(driver::percentile(v, 100) == Approx(10));
  CHECK(driver::percentile({}, 50) == 0);
}

TEST_CASE("measure-performance times every step of a PEF and records the figures") {
  test::ScratchDir dir("measure");
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.batchSize = 16;
  c.outputFolder = dir / "out";
  c.dbPath = dir / "runs.sqlite";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());

  driver::MeasureOptions o;
  o.pefPath = compiled->pefPath;
  o.steps = 20;
  o.warmup = 2;
  o.dbPath = c.dbPath;
  o.threads = 1;
  auto r = driver::measurePerformance(o);
  if (!r) FAIL(r.error().message());
  REQUIRE(r->stepMs.size() == 20);
  CHECK(r->batch == 16);
  CHECK(!r->inference);
  const auto [lo, hi] = std::minmax_element(r->stepMs.begin(), r->stepMs.end());
  CHECK(*lo <= r->medianMs);
  CHECK(r->medianMs <= r->p90Ms);
  CHECK(r->p90Ms <= r->p99Ms);
  CHECK(r->p99Ms <= *hi);
  CHECK(r->samplesPerSecond == Approx(16.0 * 20 / (r->meanMs * 20 / 1e3)).epsilon(1e-9));
  CHECK(r->estStepMs > 0);
  CHECK(r->estSamplesPerSecond == Approx(16.0 / (r->estStepMs / 1e3)));

  auto summary = support::readFile(r->summaryPath);
  REQUIRE(summary.ok());
  CHECK(r->summaryPath ==
        (std::filesystem::path(compiled->pefPath).parent_path() / "logreg_performance.json").string());
  for (const char* key : {"\"samples_per_s\"", "\"latency_p99_ms\"", "\"est_samples_per_s\"", "\"step_ms\""})
    CHECK(summary->find(key) != std::string::npos);

  REQUIRE(r->runId > 0);
  auto store = profile::RunStore::open(c.dbPath);
  REQUIRE(store.ok());
  auto metrics = store->metrics(r->runId);
  REQUIRE(metrics.ok());
  CHECK(std::count_if(metrics->begin(), metrics->end(), [](const auto& m) { return m.name == "step_ms"; }) == 20);
  CHECK(std::count_if(metrics->begin(), metrics->end(), [](const auto& m) { return m.name == "samples_per_s"; }) == 1);

  // Forward only: fewer sections per step, so a smaller chip estimate.
  o.inference = true;
  o.dbPath = "-";
  auto fwd = driver::measurePerformance(o);
  if (!fwd) FAIL(fwd.error().message());
  CHECK(fwd->inference);
  CHECK(fwd->estStepMs < r->estStepMs);
}

TEST_CASE("dfc measure-performance refuses bad flags with one line naming them") {
  test::ScratchDir dir("measure-bad");
  auto r = test::runDfc("measure-performance --pef " + (dir / "none.pef") + " --db -");
  CHECK(r.status == 2);
  CHECK(r.output.find("none.pef") != std::string::npos);
  r = test::runDfc("measure-performance --pef " + (dir / "none.pef") + " --steps 0 --db -");
  CHECK(r.status == 2);
  CHECK(r.output.find("--steps") != std::string::npos);
  r = test::runDfc("measure-performance --pef x.pef --warmup many");
  CHECK(r.status == 2);
  CHECK(r.output.find("--warmup") != std::string::npos);
}
