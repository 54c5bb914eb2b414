// End to end through the engine entry points: compile a zoo model, run it on
// a slice of Fashion-MNIST, and check what a user sees: the loss falls, the
// trace is valid for Perfetto, the store holds the compile and the run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "TestEnv.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"
#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"
#include "profile/TraceValidator.h"
#include "support/FileUtil.h"

using namespace dfc;

namespace {

driver::CompileResult compileOrFail(const driver::CompileOptions& o) {
  auto r = driver::compile(o);
  if (!r) FAIL(r.error().message());
  return *r;
}

driver::RunResult runOrFail(const driver::RunOptions& o) {
  auto r = driver::run(o);
  if (!r) FAIL(r.error().message());
  return *r;
}

}  // namespace

TEST_CASE("logreg trains for a few hundred steps and its loss falls") {
  test::ScratchDir dir("logreg");
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.outputFolder = dir / "out";
  c.dbPath = dir / "runs.sqlite";
  c.batchSize = 32;
  auto compiled = compileOrFail(c);
  REQUIRE(std::filesystem::exists(compiled.pefPath));
  REQUIRE(compiled.sections(ir::NodeRole::Backward) > 0);
  REQUIRE(compiled.sections(ir::NodeRole::Optimizer) > 0);

  driver::RunOptions r;
  r.pefPath = compiled.pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = c.dbPath;
  r.trainLimit = 32 * 300;  // 300 steps
  r.testLimit = 2000;
  r.logEvery = 50;
  std::vector<std::string> lines;
  auto result = driver::run(r, [&](const std::string& l) { lines.push_back(l); });
  if (!result) FAIL(result.error().message());
  REQUIRE(result->steps == 300);
  REQUIRE(result->firstLoss.has_value());
  CHECK(*result->finalLoss < *result->firstLoss * 0.6);
  CHECK(result->testAccuracy > 0.70);
  REQUIRE(lines.size() == 7);  // 6 loss lines + accuracy
  CHECK(lines.front().rfind("Epoch [1/1], Step [50/300], Loss: ", 0) == 0);
  CHECK(lines.back().rfind("Test Accuracy: ", 0) == 0);

  // The store has the compile, the run and one row per section call.
  auto store = profile::RunStore::open(c.dbPath);
  REQUIRE(store);
  auto runs = store->listRuns();
  REQUIRE(runs);
  REQUIRE(runs->size() == 1);
  CHECK(runs->front().status == "finished");
  CHECK(runs->front().compileId == compiled.compileId);
  REQUIRE(runs->front().finalLoss.has_value());
  CHECK(*runs->front().finalLoss == Approx(*result->finalLoss));
  auto calls = store->sectionCalls(result->runId);
  REQUIRE(calls);
  CHECK(static_cast<int64_t>(calls->size()) == result->sectionCalls);
  auto sections = store->sectionsOfCompile(compiled.compileId);
  REQUIRE(sections);
  CHECK(static_cast<int>(sections->size()) == compiled.numSections);
}

TEST_CASE("a LeNet run writes a chrome trace Perfetto accepts, with one slice per section call") {
  test::ScratchDir dir("lenet-trace");
  driver::CompileOptions c;
  c.model = "lenet";
  c.level = partition::OptLevel::O0;
  c.outputFolder = dir / "out";
  c.pefName = "lenet";
  c.dbPath = "-";
  auto compiled = compileOrFail(c);
  auto pef = pef::readPef(compiled.pefPath);
  REQUIRE(pef);

  driver::RunOptions r;
  r.pefPath = compiled.pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = "-";
  r.trainLimit = 32 * 20;
  r.testLimit = 64;
  auto result = runOrFail(r);
  CHECK(result.tracePath == (dir / "out/lenet_chrome_tracing_report.json"));
  auto json = support::readFile(result.tracePath);
  REQUIRE(json);
  auto valid = profile::validateChromeTraceJson(*json);
  if (!valid) FAIL(valid.error().message());

  auto trace = profile::parseChromeTrace(*json, result.tracePath);
  REQUIRE(trace);
  // Top row: one X slice per section call; each also on its hyperfunction's row, marked as a mirror.
  int64_t topRow = 0, hyperfunctionRows = 0;
  std::set<std::string> rowNames;
  for (const auto& e : trace->events) {
    if (e.ph != 'X' || e.cat == "host") continue;
    if (e.tid == 0) ++topRow;
    else ++hyperfunctionRows;
    CHECK((e.tid == 0) == (e.cat.find(",mirror") == std::string::npos));
  }
  CHECK(topRow == result.sectionCalls);
  CHECK(hyperfunctionRows == result.sectionCalls);
  for (const auto& [key, name] : trace->threadNames) rowNames.insert(name);
  CHECK(rowNames.count("whole model run"));
  CHECK(rowNames.count("conv1"));
  CHECK(rowNames.count("fc3"));
  // A call carries what changes per call (and the estimate to judge it by);
  // the section's constants are in the trace's sections table, once.
  const profile::TraceEvent* slice = nullptr;
  for (const auto& e : trace->events)
    if (e.ph == 'X' && e.tid == 0) { slice = &e; break; }
  REQUIRE(slice);
  std::set<std::string> keys;
  for (const auto& [k, v] : slice->args) keys.insert(k);
  CHECK(keys == std::set<std::string>{"section_id", "step", "est_latency_us", "host_gbps"});
  REQUIRE(trace->metadataJson.count("sections"));
  const std::string& table = trace->metadataJson.at("sections");
  for (const char* k : {"\"hypersection\"", "\"tflop\"", "\"pcus\"", "\"pmus\"", "\"placed_pcus\"", "\"placed_pmus\"",
                        "\"min_latency_us\"", "\"max_latency_us\"", "\"ddr_bytes\"", "\"host_bytes\""})
    CHECK(table.find(k) != std::string::npos);
  CHECK(trace->metadata.at("pef_hash") == pef->contentHash);
  CHECK(pef->contentHash.size() == 16);
}

TEST_CASE("an inference PEF runs forward only and reports accuracy") {
  test::ScratchDir dir("mlp-inf");
  driver::CompileOptions c;
  c.model = "mlp";
  c.inference = true;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = compileOrFail(c);
  CHECK(compiled.sections(ir::NodeRole::Backward) == 0);
  CHECK(compiled.sections(ir::NodeRole::Optimizer) == 0);
  driver::RunOptions r;
  r.pefPath = compiled.pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = "-";
  r.testLimit = 500;
  auto result = runOrFail(r);
  CHECK(result.steps == 0);
  CHECK(result.evalSteps == 16);  // ceil(500 / 32) evaluation steps
  CHECK(!result.finalLoss.has_value());
  CHECK(result.testSamples == 500);
  // Untrained: near chance, but a real number in [0, 1].
  CHECK(result.testAccuracy >= 0.0);
  CHECK(result.testAccuracy < 0.5);
}

namespace {

// Trains `model` for `steps` steps at -o0, -o1 and -o3 from the same seed;
// returns the per-level section counts and first and final losses.
struct LevelRun {
  int sections = 0;
  double firstLoss = 0;
  double finalLoss = 0;
};

std::vector<LevelRun> trainAtEveryLevel(const std::string& model, const std::map<std::string, int64_t>& params,
                                        int64_t batch, const std::string& ruleList, int64_t steps = 20) {
  test::ScratchDir dir("levels-" + model);
  std::vector<LevelRun> out;
  for (auto level : {partition::OptLevel::O0, partition::OptLevel::O1, partition::OptLevel::O3}) {
    driver::CompileOptions c;
    c.model = model;
    c.modelParams = params;
    c.batchSize = batch;
    c.level = level;
    c.o1RuleList = ruleList;
    c.outputFolder = dir / std::string(partition::optLevelName(level));
    c.dbPath = "-";
    auto compiled = compileOrFail(c);
    driver::RunOptions r;
    r.pefPath = compiled.pefPath;
    r.dbPath = "-";
    r.trainLimit = batch * steps;
    r.testLimit = batch;
    auto result = runOrFail(r);
    REQUIRE(result.steps == steps);
    out.push_back({compiled.numSections, *result.firstLoss, *result.finalLoss});
  }
  return out;
}

}  // namespace

TEST_CASE("lenet trains to the same losses at o0 o1 and o3 for the same seed") {
  auto runs = trainAtEveryLevel("lenet", {}, 32, "default");
  CHECK(runs[2].sections < runs[0].sections);
  CHECK(runs[0].finalLoss == Approx(runs[1].finalLoss).epsilon(1e-4));
  CHECK(runs[0].finalLoss == Approx(runs[2].finalLoss).epsilon(1e-4));
}

TEST_CASE("gpt2-mini trains to the same losses at o0 o1 and o3 with far fewer sections at o1") {
  auto runs = trainAtEveryLevel("gpt2-mini", {{"seq_len", 16}}, 4, "gpt2");
  CHECK(runs[1].sections * 5 < runs[0].sections * 3);  // at least 40% fewer sections
  CHECK(runs[2].sections < runs[1].sections);
  CHECK(runs[0].finalLoss == Approx(runs[1].finalLoss).epsilon(1e-4));
  CHECK(runs[0].finalLoss == Approx(runs[2].finalLoss).epsilon(1e-4));
}

TEST_CASE("llama-tiny trains on text for 50 steps to the same falling losses at o0 o1 and o3") {
  auto runs = trainAtEveryLevel("llama-tiny", {{"seq_len", 16}}, 4, "llama", 50);
  CHECK(runs[1].sections < runs[0].sections);
  CHECK(runs[2].sections < runs[1].sections);
  CHECK(runs[0].finalLoss < runs[0].firstLoss - 1.0);  // 5.53 -> 3.40 (ln 256 = 5.55 at the start)
  for (size_t level = 1; level < runs.size(); ++level) {
    CHECK(runs[0].firstLoss == Approx(runs[level].firstLoss).epsilon(1e-4));
    CHECK(runs[0].finalLoss == Approx(runs[level].finalLoss).epsilon(1e-4));
  }
}

TEST_CASE("bloom-tiny and neox-tiny train on text and their losses fall") {
  test::ScratchDir dir("llm-families");
  for (const char* model : {"bloom-tiny", "neox-tiny"}) {
    INFO(model);
    driver::CompileOptions c;
    c.model = model;
    c.modelParams = {{"seq_len", 16}};
    c.batchSize = 4;
    c.outputFolder = dir / model;
    c.dbPath = "-";
    auto compiled = compileOrFail(c);
    driver::RunOptions r;
    r.pefPath = compiled.pefPath;
    r.dbPath = "-";
    r.trainLimit = 4 * 30;
    r.testLimit = 4;
    auto result = runOrFail(r);
    REQUIRE(result.steps == 30);
    CHECK(*result.finalLoss < *result.firstLoss - 1.0);
  }
}

TEST_CASE("a PEF compiled with --grad-accumulation-steps has accumulate sections and trains") {
  test::ScratchDir dir("accumulate");
  driver::CompileOptions c;
  c.model = "logreg";
  c.level = partition::OptLevel::O0;
  c.optimizer = "sgd";
  c.batchSize = 8;
  c.gradAccumulationSteps = 4;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = compileOrFail(c);
  CHECK(compiled.sections(ir::NodeRole::Accumulate) > 0);
  CHECK(compiled.sections(ir::NodeRole::Optimizer) > 0);
  auto pef = pef::readPef(compiled.pefPath);  // the role survives the PEF
  REQUIRE(pef.ok());
  CHECK(std::count_if(pef->plan.sections.begin(), pef->plan.sections.end(),
                      [](const auto& s) { return s.type == ir::NodeRole::Accumulate; }) ==
        compiled.sections(ir::NodeRole::Accumulate));

  driver::RunOptions r;
  r.pefPath = compiled.pefPath;
  r.dbPath = "-";
  r.trainLimit = 8 * 40;  // 40 micro-batches: 10 optimizer steps
  r.testLimit = 8;
  auto result = runOrFail(r);
  CHECK(result.steps == 40);
  REQUIRE(result.finalLoss);
  CHECK(std::isfinite(*result.finalLoss));
}
