// dfc run --decode through driver::run: the tokens it prints, the trace (a
// slice per prefill token and decode step on the top row, its section calls
// nested inside), the run store's record, and the bad inputs it refuses
// before any work.
#include <catch2/catch.hpp>

#include "DecodeTestUtil.h"
#include "driver/run/Runner.h"
#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"

using namespace dfc;

namespace {

driver::RunOptions decodeRun(const test::ScratchDir& dir, const std::string& pef) {
  driver::RunOptions o;
  o.pefPath = pef;
  o.decode = true;
  o.promptTokens = {10, 20, 30};
  o.maxNewTokens = 5;
  o.threads = 1;
  o.dbPath = dir / "runs.sqlite";
  o.tracePath = dir / "decode_trace.json";
  return o;
}

std::vector<profile::TraceEvent> slicesNamed(const profile::Trace& t, const std::string& name) {
  std::vector<profile::TraceEvent> out;
  for (const auto& e : t.events)
    if (e.ph == 'X' && e.tid == 0 && e.name == name) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("dfc run --decode: tokens, a trace slice per step around its section calls, and a stored run", "[decode]") {
  test::ScratchDir dir("decode-run");
  const std::string pef = test::compileDecoderFile(dir, "llama-tiny", 16, 0, dir / "runs.sqlite");
  std::vector<std::string> lines;
  auto r = driver::run(decodeRun(dir, pef), [&](const std::string& line) { lines.push_back(line); });
  INFO((r ? std::string() : r.error().message()));
  REQUIRE(r.ok());
  REQUIRE(r->generated.size() == 1);
  CHECK(r->generated[0].size() == 5);
  CHECK(r->promptTokens == std::vector<int64_t>{10, 20, 30});
  CHECK(r->byteLevel);
  CHECK(r->evalSteps == 3 + 5 - 1);  // the prompt's steps, then one per generated token but the last
  REQUIRE(lines.size() >= 2);
  CHECK_THAT(lines.back(), Catch::StartsWith("Generated: 5 tokens ["));

  auto trace = profile::readChromeTrace(r->tracePath);
  REQUIRE(trace.ok());
  CHECK(slicesNamed(*trace, "prefill").size() == 1);
  CHECK(slicesNamed(*trace, "prefill token").size() == 3);
  const auto steps = slicesNamed(*trace, "decode step");
  REQUIRE(steps.size() == 4);
  for (const auto& step : steps) {  // each step's section calls lie inside its slice, on the same row
    int inside = 0;
    for (const auto& e : trace->events)
      if (e.ph == 'X' && e.tid == 0 && e.cat == "forward" && e.ts >= step.ts && e.ts + e.dur <= step.ts + step.dur) ++inside;
    CHECK(inside > 0);
  }

  auto store = profile::RunStore::open(dir / "runs.sqlite");
  REQUIRE(store.ok());
  auto runs = store->listRuns();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 1);
  CHECK(runs->front().status == "finished");
  auto metrics = store->metrics(r->runId);
  REQUIRE(metrics.ok());
  bool rate = false;
  for (const auto& m : *metrics) rate = rate || m.name == "decode_tokens_per_s";
  CHECK(rate);
  auto calls = store->sectionCalls(r->runId);
  REQUIRE(calls.ok());
  CHECK(static_cast<int64_t>(calls->size()) == r->sectionCalls);
}

TEST_CASE("dfc run --decode refuses a prompt the PEF cannot take, naming the flag", "[decode]") {
  test::ScratchDir dir("decode-refuse");
  const std::string pef = test::compileDecoderFile(dir, "gpt2-mini", 8, 0);
  auto refused = [&](driver::RunOptions o) {
    o.dbPath = "-";
    auto r = driver::run(o);
    REQUIRE_FALSE(r.ok());
    return r.error().message();
  };
  driver::RunOptions o = decodeRun(dir, pef);
  o.maxNewTokens = 7;  // 3 + 7 - 1 rows > 8
  CHECK_THAT(refused(o), Catch::Contains("--max-new-tokens 7") && Catch::Contains("--kv-cache-len"));
  o = decodeRun(dir, pef);
  o.promptTokens = {1, 256};
  CHECK_THAT(refused(o), Catch::Contains("--prompt-tokens") && Catch::Contains("256"));
  o = decodeRun(dir, pef);
  o.promptTokens.clear();
  CHECK_THAT(refused(o), Catch::Contains("--prompt"));
  const std::string prefill = test::compileDecoderFile(dir, "gpt2-mini", 0, 8);
  CHECK_THAT(refused(decodeRun(dir, prefill)), Catch::Contains("not a decode step"));
}
