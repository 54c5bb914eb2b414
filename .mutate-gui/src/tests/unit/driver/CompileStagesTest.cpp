// The compile as a stage table: one loop times, reports, cancels; the first
// stage refuses bad options before any work.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "driver/Stages.h"
#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"
#include "support/FileUtil.h"

using namespace dfc;

namespace {

struct Toy {
  std::vector<std::string> ran;
  std::atomic<bool> cancel{false};
  std::chrono::steady_clock::time_point clock{};  // a fake clock the stages advance
};

Status first(Toy& t) {
  t.ran.push_back("first");
  t.clock += std::chrono::milliseconds(3);
  return {};
}
Status second(Toy& t) {  // asks for a cancel while it runs: the loop stops before the third
  t.ran.push_back("second");
  t.clock += std::chrono::milliseconds(5);
  t.cancel = true;
  return {};
}
Status third(Toy& t) {
  t.ran.push_back("third");
  return {};
}
Status failing(Toy& t) {
  t.ran.push_back("failing");
  return makeError("stage failed");
}

driver::CompileOptions lenetOptions(const test::ScratchDir& dir) {
  driver::CompileOptions o;
  o.model = "lenet";
  o.batchSize = 4;
  o.outputFolder = dir / "out";
  o.dbPath = "-";
  return o;
}

// Stage names a compile reported, each once, in order.
std::vector<std::string> stagesReached(const std::vector<driver::CompileProgress>& reports) {
  std::vector<std::string> names;
  for (const auto& p : reports)
    if (p.stage.find(':') == std::string::npos && (names.empty() || names.back() != p.stage)) names.push_back(p.stage);
  return names;
}

}  // namespace

TEST_CASE("the stage loop runs stages in order, times each, and stops at a cancel or an error") {
  static constexpr driver::Stage<Toy> kStages[] = {{"first", 1, first}, {"second", 1, second}, {"third", 1, third}};
  Toy toy;
  std::vector<std::pair<size_t, double>> timed;
  driver::StageHooks hooks;
  hooks.cancelled = [&] { return toy.cancel.load(); };
  hooks.cancelMessage = "toy cancelled";
  hooks.after = [&](size_t i, double ms) {
    timed.emplace_back(i, ms);
    toy.clock += std::chrono::milliseconds(100);  // time between stages is no stage's
  };
  hooks.now = [&] { return toy.clock; };
  Status st = driver::runStages<Toy>(kStages, toy, hooks);
  REQUIRE(!st);
  CHECK(st.error().message() == "toy cancelled");
  CHECK(toy.ran == std::vector<std::string>{"first", "second"});
  REQUIRE(timed.size() == 2);
  CHECK(timed[0] == std::pair<size_t, double>{0, 3.0});
  CHECK(timed[1] == std::pair<size_t, double>{1, 5.0});

  static constexpr driver::Stage<Toy> kFailing[] = {{"first", 1, first}, {"failing", 1, failing}, {"third", 1, third}};
  Toy other;
  Status failed = driver::runStages<Toy>(kFailing, other, {});
  REQUIRE(!failed);
  CHECK(failed.error().message() == "stage failed");
  CHECK(other.ran == std::vector<std::string>{"first", "failing"});

  CHECK(driver::progressBefore<Toy>(kStages, 0) == 0.0);
  CHECK(driver::progressBefore<Toy>(kStages, 2) == Approx(2.0 / 3.0));
  CHECK(driver::progressBefore<Toy>(kStages, 3) == 1.0);
}

TEST_CASE("a compile runs every stage once: times that sum to the total, progress that only grows to the end") {
  test::ScratchDir dir("stages");
  const std::vector<std::string> expected = {"validate",  "frontend", "spatial-tiling", "autograd", "passes",    "verify", "data-parallel",
                                             "decompose", "map",      "lower",    "place",     "route",  "bitfiles",
                                             "write-pef", "record"};
  CHECK(driver::compileStageNames() == expected);
  std::vector<driver::CompileProgress> reports;
  auto result = driver::compile(lenetOptions(dir), [&](const driver::CompileProgress& p) { reports.push_back(p); });
  REQUIRE(result.ok());
  CHECK(stagesReached(reports) == expected);
  std::vector<std::string> timedNames;
  double sum = 0;
  for (const auto& [name, ms] : result->stageMs) {
    timedNames.push_back(name);
    sum += ms;
  }
  CHECK(timedNames == expected);
  // Exact sums are the fake-clock test's; here the wall clock on a shared machine
  // (a busy scheduler can take a few ms between two stages): no big work outside the stages.
  INFO("stage times sum to " << sum << " ms of " << result->compileMs << " ms");
  CHECK(sum <= result->compileMs);
  CHECK(result->compileMs - sum <= 0.1 * result->compileMs + 50.0);

  REQUIRE(!reports.empty());
  CHECK(reports.front().fraction == 0.0);
  CHECK(reports.back().fraction == 1.0);
  for (size_t i = 1; i < reports.size(); ++i) {
    INFO("report " << i << ": " << reports[i].stage);
    CHECK(reports[i].fraction >= reports[i - 1].fraction);
    CHECK(reports[i].index >= reports[i - 1].index);
    CHECK(reports[i].total == static_cast<int>(expected.size()));
  }
}

TEST_CASE("a cancel between stages stops the compile there and writes no PEF, after write-pef it completes") {
  test::ScratchDir dir("stages-cancel");
  std::atomic<bool> cancel{false};
  std::vector<driver::CompileProgress> reports;
  auto cancelAt = [&](const std::string& stage) {
    return [&, stage](const driver::CompileProgress& p) {
      reports.push_back(p);
      if (p.stage == stage) cancel = true;
    };
  };
  auto options = lenetOptions(dir);
  auto cancelled = driver::compile(options, cancelAt("map"), &cancel);
  REQUIRE(!cancelled);
  CHECK(cancelled.error().message() == "compile cancelled");
  CHECK(stagesReached(reports).back() == "map");  // map ran; place never started
  CHECK(!std::filesystem::exists(dir / "out/lenet.pef"));

  cancel = false;
  reports.clear();
  auto late = driver::compile(options, cancelAt("record"), &cancel);
  REQUIRE(late.ok());
  CHECK(std::filesystem::exists(late->pefPath));
}

TEST_CASE("the validate stage refuses bad options before the frontend runs, naming the flag") {
  test::ScratchDir dir("stages-validate");
  auto badArch = dir / "bad.yaml";
  REQUIRE(support::writeFileAtomic(badArch, "tiles: 4\n"));
  struct Bad {
    std::function<void(driver::CompileOptions&)> set;
    std::string named;
  };
  const std::vector<Bad> cases = {
      {[](auto& o) { o.arch = "sn99"; }, "--arch sn99"},
      {[&](auto& o) { o.arch = badArch; }, "--arch " + badArch},
      {[](auto& o) { o.optimizer = "adagrad"; }, "--optimizer adagrad"},
      {[](auto& o) { o.compilerMode = "vision"; }, "--compiler-mode 'vision'"},
      {[](auto& o) { o.level = static_cast<partition::OptLevel>(7); }, "optimization level"},
      {[](auto& o) { o.scalingFactors = {"1", "2", "0.5"}; }, "--resources-scaling-factors"},
      {[](auto& o) { o.pefName = "a/b"; }, "--pef-name 'a/b'"},
      {[](auto& o) { o.batchSize = 0; }, "-b/--batch-size"},
      {[](auto& o) { o.nChips = 9; }, "--n-chips"},
      {[](auto& o) { o.numTiles = 3; }, "--num-tiles"},
      {[](auto& o) { o.learningRate = 0; }, "--lr"},
      {[](auto& o) {
         o.level = partition::OptLevel::O1;
         o.o1RuleList = "nosuchrules.yaml";
       }, "nosuchrules.yaml"},
  };
  for (const Bad& bad : cases) {
    driver::CompileOptions o;
    o.model = "gpt2";  // full size: building it alone would take a while
    o.outputFolder = dir / "out";
    o.dbPath = "-";
    bad.set(o);
    INFO("expecting an error naming " << bad.named);
    Status up = o.validate();
    REQUIRE(!up);
    CHECK(up.error().message().find(bad.named) != std::string::npos);
    std::vector<std::string> reached;
    auto result = driver::compile(o, [&](const driver::CompileProgress& p) { reached.push_back(p.stage); });
    REQUIRE(!result);
    CHECK(result.error().message() == up.error().message());
    CHECK(reached == std::vector<std::string>{"validate"});
    CHECK(!std::filesystem::exists(dir / "out"));  // nothing written, not even the folder
  }
  CHECK(lenetOptions(dir).validate().ok());
  CHECK(driver::CompileOptions{}.validate().error().message().find("--model") != std::string::npos);
}
