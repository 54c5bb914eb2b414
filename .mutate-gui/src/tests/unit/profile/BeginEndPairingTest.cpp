// One rule pairs B/E events for both readers; others' files cross B/E pairs
// on a row, and each slice must keep its own span.
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>

#include "profile/BeginEndPairing.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceFile.h"
#include "profile/TraceIndex.h"

using namespace dfc::profile;

namespace {

// Row (1,1): a [0,10] and b [5,15] cross; E events carry names. Row (1,2):
// nameless E closes the innermost; a B never ended lasts to the row's end.
const char* kCrossing = R"({"traceEvents":[
  {"ph":"B","name":"a","pid":1,"tid":1,"ts":0},
  {"ph":"B","name":"b","pid":1,"tid":1,"ts":5,"args":{"k":1}},
  {"ph":"E","name":"a","pid":1,"tid":1,"ts":10},
  {"ph":"E","name":"b","pid":1,"tid":1,"ts":15},
  {"ph":"B","name":"outer","pid":1,"tid":2,"ts":0},
  {"ph":"B","name":"inner","pid":1,"tid":2,"ts":2},
  {"ph":"E","pid":1,"tid":2,"ts":4},
  {"ph":"E","pid":1,"tid":2,"ts":9},
  {"ph":"E","pid":1,"tid":2,"ts":11},
  {"ph":"B","name":"open","pid":1,"tid":2,"ts":12},
  {"ph":"X","name":"last","pid":1,"tid":2,"ts":13,"dur":7}
]})";

double durationOf(const Trace& t, const std::string& name) {
  for (const auto& e : t.events)
    if (e.name == name) return e.dur;
  return -1;
}

double durationOf(const CompactTrace& t, const std::string& name) {
  for (const auto& e : t.events)
    if (t.string(e.name) == name) return e.dur;
  return -1;
}

}  // namespace

TEST_CASE("B/E pairing closes the open B an E names, else the innermost", "[profile][pairing]") {
  const std::vector<BeginEndMark> marks = {
      {0, 0, "a", true},   {0, 5, "b", true}, {0, 10, "a", false},
      {0, 15, "b", false}, {1, 3, "x", true}, {1, 1, "", false},  // an E before anything opened is dropped
  };
  const auto pairs = pairBeginEnd(marks, {15, 20});
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[0].begin == 0);  // a closes first, at 10
  CHECK(pairs[0].end == 2);
  CHECK(pairs[0].durUs == 10);
  CHECK(pairs[1].begin == 1);
  CHECK(pairs[1].durUs == 10);
  CHECK(pairs[2].begin == 4);  // x never ends: until its row's end
  CHECK(pairs[2].end == BeginEndPair::kOpen);
  CHECK(pairs[2].durUs == 17);
}

TEST_CASE("Both readers pair a file whose B/E do not nest the same way", "[profile][pairing]") {
  auto dom = parseChromeTrace(kCrossing, "crossing.json");
  REQUIRE(dom);
  auto compact = parseCompactTrace(kCrossing, "crossing.json");
  REQUIRE(compact);
  for (const char* name : {"a", "b"}) {
    CHECK(durationOf(*dom, name) == 10);
    CHECK(durationOf(*compact, name) == 10);
  }
  CHECK(durationOf(*dom, "inner") == 2);
  CHECK(durationOf(*dom, "outer") == 9);
  CHECK(durationOf(*compact, "outer") == 9);
  CHECK(durationOf(*dom, "open") == 8);  // row (1,2) ends at 20, with "last"
  CHECK(durationOf(*compact, "open") == 8);
  CHECK(dom->events.size() == compact->events.size());
  // Cut into chunks a few events long, parsed apart: a B in one chunk pairs with its E in another.
  setTraceChunkBytes(60);
  auto chunked = parseCompactTrace(kCrossing, "crossing.json");
  setTraceChunkBytes(0);
  REQUIRE(chunked);
  for (const char* name : {"a", "b", "inner", "outer", "open"}) CHECK(durationOf(*chunked, name) == durationOf(*compact, name));

  // The index keeps the crossing slices: b starts inside a, so it is a's child,
  // and only b's part inside a ([5,10]) leaves a's self time: 10 - 5.
  const TraceIndex index(std::make_shared<const CompactTrace>(std::move(compact.value())));
  const auto& events = index.trace().events;
  for (uint32_t i = 0; i < events.size(); ++i) {
    if (index.trace().string(events[i].name) == "a") CHECK(index.selfUs(i) == Approx(5));
    if (index.trace().string(events[i].name) == "b") CHECK(index.depth(i) == 1);
  }
  // Rows busy in [0,15]: (1,1) a u b = [0,15] = 15; (1,2) outer [0,9] and open/last [12,15] = 12.
  CHECK(index.aggregate(0, 15).total.wallUs == Approx(27));
}

// Issue 36: a 79 KB .json.gz of B events that no E names took minutes, as
// every E scanned the whole open stack for its name. The marks are built
// here: 300,000 B "open" on one row, then 300,000 E "close" that name none
// of them, so each closes the innermost. Linear pairing does this in
// milliseconds; the scan made 4.5e10 name comparisons (minutes).
TEST_CASE("B/E pairing is linear however deep the open stack and whatever the E names", "[profile][pairing]") {
  const size_t n = 300'000;
  std::vector<BeginEndMark> marks;
  marks.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) marks.push_back({0, static_cast<double>(i), "open", true});
  for (size_t i = 0; i < n; ++i) marks.push_back({0, static_cast<double>(n + i), "close", false});
  const auto pairs = pairBeginEnd(marks, {2.0 * n});
  REQUIRE(pairs.size() == n);
  // The first E closes the innermost (last) B: ts n - 1 to n; the last E the outermost: 0 to 2n - 1.
  CHECK(pairs.front().begin == n - 1);
  CHECK(pairs.front().durUs == 1);
  CHECK(pairs.back().begin == 0);
  CHECK(pairs.back().durUs == 2 * n - 1);
}

TEST_CASE("a gzip trace of deeply nested B/E events with unmatched E names reads at once", "[profile][pairing]") {
  std::string json = R"({"traceEvents":[)";
  const int n = 20'000;
  for (int i = 0; i < n; ++i) json += R"({"ph":"B","name":"b)" + std::to_string(i % 7) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(i) + "},";
  for (int i = 0; i < n; ++i) json += R"({"ph":"E","name":"zz","pid":1,"tid":1,"ts":)" + std::to_string(n + i) + "},";
  json.back() = ']';
  json += "}";
  const std::string path = (std::filesystem::temp_directory_path() / "dfc-pairing-deep.json.gz").string();
  REQUIRE(writeTraceFile(path, json));
  auto compact = readCompactTrace(path);
  auto dom = readChromeTrace(path);
  std::filesystem::remove(path);
  REQUIRE(compact);
  REQUIRE(dom);
  CHECK(compact->events.size() == static_cast<size_t>(n));
  CHECK(dom->events.size() == static_cast<size_t>(n));
  const TraceIndex index(std::make_shared<const CompactTrace>(std::move(compact.value())));
  CHECK(index.aggregate(0, 2 * n).total.wallUs == Approx(2 * n - 1));  // the outermost B spans it all
}
