// One rule pairs B/E events for both readers; others' files cross B/E pairs
// on a row, and each slice must keep its own span.
#include <catch2/catch.hpp>
#include <memory>

#include "profile/BeginEndPairing.h"
#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
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

  // The index keeps the crossing slices: b starts inside a, so it is a's child,
  // and only b's part inside a ([5,10]) leaves a's self time: 10 - 5.
  const TraceIndex index(std::make_shared<const CompactTrace>(std::move(compact.value())));
  const auto& events = index.trace().events;
  for (uint32_t i = 0; i < events.size(); ++i) {
    if (index.trace().string(events[i].name) == "a") CHECK(index.selfUs(i) == Approx(5));
    if (index.trace().string(events[i].name) == "b") CHECK(index.depth(i) == 1);
  }
  CHECK(index.aggregate(0, 15).total.wallUs == Approx(15));
}
