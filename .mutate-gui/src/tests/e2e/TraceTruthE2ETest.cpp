// Issue 38 on a real LeNet run: a range of 8 training steps counts 8 calls
// of a section called once per step (the trace shows each call on the
// whole-model row and on its hyperfunction row: it counted 16), self <= wall
// in every row, and `dfc trace --aggregate`, the engine's aggregation (what
// dfstudio's range table shows) and the run store agree call for call.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <sstream>

#include "TestEnv.h"
#include "pef/Pef.h"
#include "profile/CompactTrace.h"
#include "profile/RawArgs.h"
#include "profile/RunStore.h"
#include "profile/TraceIndex.h"

using namespace dfc;
using test::runDfc;

namespace {

struct CsvRow {
  size_t count = 0;
  double wall = 0, self = 0;
};

// dfc trace --csv: "section,count,wall_us,self_us,mean_us,min_us,max_us".
std::map<std::string, CsvRow> parseCsv(const std::string& text) {
  std::map<std::string, CsvRow> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key, count, wall, self;
    std::getline(fields, key, ',');
    std::getline(fields, count, ',');
    std::getline(fields, wall, ',');
    std::getline(fields, self, ',');
    rows[key] = {std::stoul(count), std::stod(wall), std::stod(self)};
  }
  return rows;
}

}  // namespace

TEST_CASE("LeNet: 8 selected steps count 8 calls per section, and dfc trace, the index and the run store agree",
          "[e2e][trace][truth]") {
  test::ScratchDir dir("trace-truth");
  const std::string db = dir / "runs.db", out = dir / "out";
  REQUIRE(runDfc("compile --model lenet -o0 --pef-name lenet --db " + db + " --output-folder " + out).status == 0);
  auto ran = runDfc("run --pef " + out + "/lenet.pef --data-folder " + test::kFashionMnist +
                    " --train-limit 384 --test-limit 32 --db " + db);  // 12 training steps of 32
  INFO(ran.output);
  REQUIRE(ran.status == 0);
  const std::string tracePath = out + "/lenet_chrome_tracing_report.json";
  auto compact = profile::readCompactTrace(tracePath);
  REQUIRE(compact);
  const profile::TraceIndex index(std::make_shared<const profile::CompactTrace>(std::move(compact.value())));
  const auto& trace = index.trace();

  // Steps 2..9 on the whole-model row: from the first call of step 2 to the end of step 9's last.
  double t0 = 1e300, t1 = -1e300;
  for (const profile::CompactEvent& e : trace.events) {
    if (e.ph != 'X' || trace.threads[e.thread].tid != 0) continue;
    const std::string args = trace.argsJson(e);
    const auto step = profile::findRawArg(args, "step");
    if (!step) continue;
    const double s = step->number().value_or(-1);
    if (s == 2) t0 = std::min(t0, e.ts);
    if (s == 9) t1 = std::max(t1, e.ts + e.dur);
  }
  REQUIRE(t0 < t1);
  const profile::Aggregate range = index.aggregate(t0, t1, {}, profile::GroupBy::Section);
  auto pef = pef::readPef(out + "/lenet.pef");
  REQUIRE(pef);
  std::map<int, int> callsPerStep;
  for (int id : pef->plan.schedule) ++callsPerStep[id];
  size_t checked = 0;
  for (const profile::AggregateGroup& g : range.groups) {
    INFO("section " << g.key);
    CHECK(g.selfUs <= g.wallUs + 1e-6);
    if (g.key.empty()) continue;  // host phases
    const int id = std::stoi(g.key);
    CHECK(g.count == static_cast<size_t>(8 * callsPerStep[id]));  // count = steps x calls per step
    checked += callsPerStep[id] == 1;
  }
  CHECK(checked > 10);  // LeNet at -o0 has dozens of sections, each once per step
  CHECK(range.total.selfUs == Approx(range.total.wallUs));

  // dfc trace --aggregate over the same range (times from the trace's start) prints the same figures.
  char from[64], to[64];
  std::snprintf(from, sizeof from, "%.6f", t0 - index.startUs());
  std::snprintf(to, sizeof to, "%.6f", t1 - index.startUs());
  auto cli = runDfc("trace " + tracePath + " --aggregate --group-by section --csv --from " + from + " --to " + to);
  REQUIRE(cli.status == 0);
  const auto rows = parseCsv(cli.output);
  for (const profile::AggregateGroup& g : range.groups) {
    const auto it = rows.find(g.key.empty() ? "(none)" : g.key);
    REQUIRE(it != rows.end());
    CHECK(it->second.count == g.count);
    CHECK(it->second.wall == Approx(g.wallUs).margin(2e-3));
    CHECK(it->second.self == Approx(g.selfUs).margin(2e-3));
  }

  // The run store has one row per call: steps 2..9 hold the same counts.
  auto store = profile::RunStore::open(db);
  REQUIRE(store.ok());
  auto runs = store->listRuns();
  REQUIRE(runs.ok());
  REQUIRE(!runs->empty());
  auto calls = store->sectionCalls(runs->front().id);
  REQUIRE(calls.ok());
  std::map<std::string, size_t> stored;
  for (const profile::SectionCallRecord& c : *calls)
    if (c.step >= 2 && c.step <= 9) ++stored[std::to_string(c.sectionId)];
  for (const profile::AggregateGroup& g : range.groups)
    if (!g.key.empty()) CHECK(stored[g.key.substr(0, g.key.find(' '))] == g.count);
}
