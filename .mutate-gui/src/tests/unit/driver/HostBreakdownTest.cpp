// The host row of a run's trace: the named phases nest (steps in an epoch or
// the evaluation, feeding and dispatch overhead in a step), and the table
// `dfc inspect --run` prints (from the run store) has the trace's totals.
#include <catch2/catch.hpp>
#include <set>

#include "driver/compile/Compiler.h"
#include "driver/report/HostBreakdown.h"
#include "driver/run/RunTrace.h"
#include "driver/run/Runner.h"
#include "e2e/TestEnv.h"
#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"

using namespace dfc;

namespace {

struct HostRun {
  driver::RunResult result;
  profile::Trace trace;
  std::vector<profile::TraceEvent> host;  // the host row's slices
};

HostRun runLenet(const test::ScratchDir& dir) {
  driver::CompileOptions c;
  c.model = "lenet";
  c.batchSize = 16;
  c.outputFolder = dir / "out";
  c.dbPath = dir / "runs.sqlite";
  auto compiled = driver::compile(c);
  REQUIRE(compiled.ok());
  driver::RunOptions r;
  r.pefPath = compiled->pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = dir / "runs.sqlite";
  r.trainLimit = 64;
  r.testLimit = 32;
  auto ran = driver::run(r);
  if (!ran) FAIL(ran.error().message());
  auto trace = profile::readChromeTrace(ran->tracePath);
  REQUIRE(trace.ok());
  HostRun out{std::move(*ran), std::move(*trace), {}};
  for (const auto& e : out.trace.events)
    if (e.ph == 'X' && e.pid == driver::RunTrace::pidForRank(0) && e.tid == driver::RunTrace::kHostTid)
      out.host.push_back(e);
  return out;
}

bool inside(const profile::TraceEvent& child, const profile::TraceEvent& parent) {
  constexpr double kSlackUs = 0.01;  // the JSON's number rounding
  return child.ts >= parent.ts - kSlackUs && child.ts + child.dur <= parent.ts + parent.dur + kSlackUs;
}

// Every slice named `child` lies inside a slice named one of `parents`.
void checkNested(const std::vector<profile::TraceEvent>& host, std::string_view child,
                 const std::set<std::string_view>& parents) {
  int seen = 0;
  for (const auto& c : host) {
    if (c.name != child) continue;
    ++seen;
    bool found = false;
    for (const auto& p : host) found = found || (parents.count(p.name) && inside(c, p));
    INFO(std::string(child) << " at " << c.ts << " us");
    CHECK(found);
  }
  CHECK(seen > 0);
}

}  // namespace

TEST_CASE("the host row has every phase, nested: steps in epochs, feeding and dispatch in steps") {
  test::ScratchDir dir("host-row");
  HostRun run = runLenet(dir);
  std::set<std::string> names;
  for (const auto& e : run.host) names.insert(e.name);
  for (const auto& phase : driver::hostPhases()) {
    if (phase.name == driver::host::kJoinRanks) continue;  // data parallel only
    if (phase.name == driver::host::kDispatch) continue;   // a step's args: one gap per section call is no slice
    INFO(std::string(phase.name));
    CHECK(names.count(std::string(phase.name)) == 1);
  }
  namespace h = driver::host;
  checkNested(run.host, h::kStep, {h::kEpoch, h::kEvaluate});
  checkNested(run.host, h::kFeed, {h::kStep});
  // Dispatch overhead: each step's total and gap count ride on its slice.
  for (const auto& e : run.host) {
    if (e.name != h::kStep) continue;
    std::set<std::string> keys;
    for (const auto& [k, v] : e.args) keys.insert(k);
    CHECK(keys.count(std::string(h::kDispatchUsArg)));
    CHECK(keys.count(std::string(h::kDispatchGapsArg)));
  }
  checkNested(run.host, h::kStoreWrite, {h::kStep, h::kEvaluate});
  // Top-level phases follow one another without overlapping.
  std::vector<profile::TraceEvent> top;
  for (const auto& e : run.host)
    for (const auto& phase : driver::hostPhases())
      if (phase.depth == 0 && e.name == phase.name) top.push_back(e);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.ts < b.ts; });
  for (size_t i = 1; i < top.size(); ++i) {
    INFO(top[i - 1].name << " then " << top[i].name);
    CHECK(top[i - 1].ts + top[i - 1].dur <= top[i].ts + 0.01);
  }
  // 4 training steps (64 / 16) and 2 evaluation steps: one feed per step.
  const auto rows = driver::hostBreakdownOfTrace(run.trace, 1, driver::RunTrace::kHostTid);
  auto count = [&](std::string_view n) {
    for (const auto& r : rows)
      if (r.name == n) return r.count;
    return int64_t{-1};
  };
  CHECK(count(h::kStep) == 6);
  CHECK(count(h::kFeed) == 6);
  CHECK(count(h::kDispatch) >= 6);  // at least a gap per step, one per section call
  CHECK(count(h::kEpoch) == 1);
  CHECK(count(h::kTraceWrite) == 1);
}

TEST_CASE("the stored host breakdown (dfc inspect --run) has the trace's totals") {
  test::ScratchDir dir("host-table");
  HostRun run = runLenet(dir);
  const auto fromTrace = driver::hostBreakdownOfTrace(run.trace, 1, driver::RunTrace::kHostTid);
  auto store = profile::RunStore::open(dir / "runs.sqlite");
  REQUIRE(store.ok());
  auto metrics = store->metrics(run.result.runId);
  REQUIRE(metrics.ok());
  const auto stored = driver::hostBreakdownFromMetrics(*metrics);
  REQUIRE(stored.size() == fromTrace.size());
  REQUIRE(run.result.hostBreakdown.size() == fromTrace.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    INFO(stored[i].name);
    CHECK(stored[i].name == fromTrace[i].name);
    CHECK(stored[i].count == fromTrace[i].count);
    CHECK(stored[i].totalUs == Approx(fromTrace[i].totalUs).epsilon(1e-6).margin(0.05));
    CHECK(run.result.hostBreakdown[i].totalUs == Approx(fromTrace[i].totalUs).epsilon(1e-6).margin(0.05));
  }
  const std::string table = driver::hostBreakdownTable(stored);
  CHECK(table.find("section dispatch overhead") != std::string::npos);
  CHECK(table.find("host wall time (top level)") != std::string::npos);
}
