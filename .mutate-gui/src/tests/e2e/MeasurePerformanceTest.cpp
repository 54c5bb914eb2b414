// dfc measure-performance: throughput and step latency over many steps of
// synthetic inputs, beside the chip estimate, in a JSON summary and the store.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/MeasurePerformance.h"
#include "pef/Pef.h"
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

TEST_CASE("measure-performance --op-profile: host time by kernel, fused groups under their own names") {
  test::ScratchDir dir("measure-ops");
  auto compileAt = [&](partition::OptLevel level, const std::string& name) {
    driver::CompileOptions c;
    c.model = "mlp";
    c.level = level;
    c.batchSize = 16;
    c.pefName = name;
    c.outputFolder = dir / name;
    c.dbPath = "-";
    auto compiled = driver::compile(c);
    if (!compiled) FAIL(compiled.error().message());
    return compiled->pefPath;
  };
  const std::string db = dir / "runs.sqlite";
  auto measure = [&](const std::string& pef, bool profile) {
    driver::MeasureOptions o;
    o.pefPath = pef;
    o.steps = 6;
    o.warmup = 1;
    o.dbPath = db;
    o.threads = 1;
    o.opProfile = profile;
    auto r = driver::measurePerformance(o);
    if (!r) FAIL(r.error().message());
    return *r;
  };
  auto labels = [](const driver::MeasureResult& r) {
    std::map<std::string, driver::OpTime> out;
    for (const auto& op : r.ops) out[op.label] = op;
    return out;
  };

  const std::string o0 = compileAt(partition::OptLevel::O0, "o0");
  const driver::MeasureResult byOp = measure(o0, true);
  auto pef = pef::readPef(o0);
  REQUIRE(pef.ok());
  // Op by op: every node of the training step runs once a step under its op's name, plus the state updates.
  double calls = 0;
  for (const auto& op : byOp.ops) {
    CHECK(op.msPerStep >= 0);
    if (op.label != "state updates") calls += op.callsPerStep;
  }
  CHECK(calls == Approx(static_cast<double>(pef->graph.nodes.size())));
  auto ops = labels(byOp);
  REQUIRE(ops.count("matmul"));
  CHECK(ops["matmul"].family == "linalg");
  CHECK(ops.count("bias_add"));
  CHECK(ops.count("state updates"));
  CHECK(byOp.opProfiledMs > 0);
  CHECK(byOp.opProfiledMs <= byOp.meanMs * 1.001);
  for (size_t i = 1; i < byOp.ops.size(); ++i) CHECK(byOp.ops[i - 1].msPerStep >= byOp.ops[i].msPerStep);
  auto summary = support::readFile(byOp.summaryPath);
  REQUIRE(summary.ok());
  CHECK(summary->find("\"op_profile\"") != std::string::npos);
  CHECK(summary->find("\"calls_per_step\"") != std::string::npos);
  // The run store keeps the table: the Runs screen reads it back, largest first.
  REQUIRE(byOp.runId > 0);
  auto store = profile::RunStore::open(db);
  REQUIRE(store.ok());
  auto metrics = store->metrics(byOp.runId);
  REQUIRE(metrics.ok());
  const std::vector<driver::OpTime> stored = driver::opProfileFromMetrics(*metrics);
  REQUIRE(stored.size() == byOp.ops.size());
  driver::MeasureResult fromStore;
  fromStore.ops = stored;
  auto storedOps = labels(fromStore);
  for (const auto& op : byOp.ops) {
    REQUIRE(storedOps.count(op.label));
    CHECK(storedOps[op.label].family == op.family);
    CHECK(storedOps[op.label].msPerStep == op.msPerStep);
    CHECK(storedOps[op.label].callsPerStep == op.callsPerStep);
  }
  for (size_t i = 1; i < stored.size(); ++i) CHECK(stored[i - 1].msPerStep >= stored[i].msPerStep);

  // -o3 fuses: the GEMMs take their bias_add as an epilogue, so no bias_add runs alone.
  auto fused = labels(measure(compileAt(partition::OptLevel::O3, "o3"), true));
  CHECK(fused.count("matmul + bias_add"));
  CHECK(!fused.count("bias_add"));

  // Without the flag nothing is timed per kernel and the summary has no profile.
  const driver::MeasureResult plain = measure(o0, false);
  CHECK(plain.ops.empty());
  CHECK(support::readFile(plain.summaryPath)->find("op_profile") == std::string::npos);

  auto cli = test::runDfc("measure-performance --pef " + o0 + " --steps 2 --warmup 0 --threads 1 --db - --op-profile");
  CHECK(cli.status == 0);
  CHECK(cli.output.find("host time by kernel") != std::string::npos);
  CHECK(cli.output.find("linalg") != std::string::npos);
  CHECK(cli.output.find("by family:") != std::string::npos);
}
