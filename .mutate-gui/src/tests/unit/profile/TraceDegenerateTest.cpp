// TraceIndex on degenerate geometry, by TraceIndex.h's rules: a slice ending
// exactly where the next starts (touching) is closed, so the next is its
// sibling; a child may end exactly at its parent's end; equal starts nest
// longer first; a zero-length slice nests where it starts and takes part in a
// range when t0 <= ts <= t1 (at either end); a slice that only touches a
// range (at its start or its end) does not, in search counts as in the range table; a child that outlives its parent
// splits the row's busy time between them (self times add up to the busy time); search walks equal starts in index
// order.
#include <catch2/catch.hpp>

#include <memory>

#include "profile/CompactTrace.h"
#include "profile/TraceIndex.h"

using namespace dfc::profile;

namespace {

TraceEvent slice(const std::string& name, int64_t tid, double ts, double dur) {
  return TraceEvent{'X', name, "", 1, tid, ts, dur, {}};
}

// Row tid 1:
//   P [0,10] { C [0,4] (same start, shorter), C [4,10] (touches the first, ends with P) }
//   Q [10,20] (touches P) { Z [15,15] (zero length) }
//   Z [20,20] (zero length where Q ends: Q is closed)
//   R [30,40], R [30,40] (identical: the second nests in the first)
// Row tid 2:
//   K [50,60] { L [55,70] (outlives its parent) }
// Row tid 3: only zero-length slices, M [5,5], M [5,5].
std::shared_ptr<const CompactTrace> degenerateTrace() {
  Trace t;
  t.threadNames[{1, 1}] = "a";
  t.threadNames[{1, 2}] = "b";
  t.threadNames[{1, 3}] = "c";
  t.events = {
      slice("C", 1, 4, 6),  slice("Q", 1, 10, 10), slice("C", 1, 0, 4),  slice("P", 1, 0, 10), slice("Z", 1, 20, 0),
      slice("Z", 1, 15, 0), slice("R", 1, 30, 10), slice("R", 1, 30, 10), slice("K", 2, 50, 10), slice("L", 2, 55, 15),
      slice("M", 3, 5, 0),  slice("M", 3, 5, 0),
  };
  return std::make_shared<const CompactTrace>(compactTrace(t));
}

uint32_t find(const TraceIndex& index, const std::string& name, double ts, int nth = 0) {
  const auto& events = index.trace().events;
  for (uint32_t i = 0; i < events.size(); ++i)
    if (events[i].ph == 'X' && index.trace().string(events[i].name) == name && events[i].ts == ts && nth-- == 0) return i;
  FAIL("no slice " << name << " at " << ts);
  return 0;
}

const AggregateGroup* group(const Aggregate& a, const std::string& key) {
  for (const auto& g : a.groups)
    if (g.key == key) return &g;
  return nullptr;
}

double selfSum(const Aggregate& a) {
  double s = 0;
  for (const auto& g : a.groups) s += g.selfUs;
  return s;
}

}  // namespace

TEST_CASE("degenerate nesting: touching slices are siblings, equal starts nest longer first", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  const uint32_t p = find(index, "P", 0), c1 = find(index, "C", 0), c2 = find(index, "C", 4);
  const uint32_t q = find(index, "Q", 10), zIn = find(index, "Z", 15), zEnd = find(index, "Z", 20);
  CHECK(index.depth(p) == 0);
  CHECK(index.parent(p) == TraceIndex::kNoSlice);
  CHECK(index.parent(c1) == p);  // same start, shorter: inside
  CHECK(index.depth(c1) == 1);
  CHECK(index.parent(c2) == p);  // starts where its sibling ends: not its child
  CHECK(index.depth(c2) == 1);
  CHECK(index.parent(q) == TraceIndex::kNoSlice);  // starts where P ends: P is closed
  CHECK(index.depth(q) == 0);
  CHECK(index.parent(zIn) == q);
  CHECK(index.depth(zIn) == 1);
  CHECK(index.parent(zEnd) == TraceIndex::kNoSlice);  // at Q's end: Q is closed
  CHECK(index.depth(zEnd) == 0);
  CHECK(index.selfUs(p) == Approx(0).margin(1e-12));  // its two children cover it exactly
  CHECK(index.selfUs(c1) == Approx(4));
  CHECK(index.selfUs(c2) == Approx(6));
  CHECK(index.selfUs(q) == Approx(10));  // a zero-length child takes nothing
  CHECK(index.selfUs(zIn) == 0);
  CHECK(index.children(p) == std::vector<uint32_t>{c1, c2});
  CHECK(index.children(q) == std::vector<uint32_t>{zIn});
  CHECK(index.children(c2).empty());
  const uint32_t r1 = find(index, "R", 30, 0), r2 = find(index, "R", 30, 1);
  CHECK(r1 < r2);
  CHECK(index.parent(r2) == r1);
  CHECK(index.depth(r2) == 1);
  CHECK(index.selfUs(r1) == Approx(0).margin(1e-12));
  CHECK(index.selfUs(r2) == Approx(10));
  // A row of zero-length slices at one time: the second nests in nothing (the first is closed at once).
  const uint32_t m1 = find(index, "M", 5, 0), m2 = find(index, "M", 5, 1);
  CHECK(index.depth(m1) == 0);
  CHECK(index.depth(m2) == 0);
  CHECK(index.rowMaxDurationUs(index.trace().events[m1].thread) == 0);
}

TEST_CASE("degenerate nesting: a child outliving its parent shares the row's busy time", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  const uint32_t k = find(index, "K", 50), l = find(index, "L", 55);
  CHECK(index.parent(l) == k);
  CHECK(index.depth(l) == 1);
  CHECK(index.selfUs(k) == Approx(5));   // [50,55]
  CHECK(index.selfUs(l) == Approx(15));  // [55,70]: the deepest running slice
  const auto a = index.aggregate(0, 100, {index.trace().events[k].thread});
  CHECK(a.total.wallUs == Approx(20));
  CHECK(selfSum(a) == Approx(20));
  // Clipped at 58: K's self [50,55], L's [55,58].
  const auto part = index.aggregate(0, 58, {index.trace().events[k].thread});
  CHECK(group(part, "K")->selfUs == Approx(5));
  CHECK(group(part, "L")->selfUs == Approx(3));
  CHECK(group(part, "L")->sumUs == Approx(3));
  CHECK(part.total.wallUs == Approx(8));
}

TEST_CASE("degenerate nesting: per-name statistics count zero-length and identical slices", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  CHECK(index.sliceCount() == 12);
  const NameStats* c = index.statsFor("C");
  REQUIRE(c);
  CHECK(c->count == 2);
  CHECK(c->totalUs == Approx(10));
  CHECK(c->selfUs == Approx(10));
  CHECK(c->minUs == Approx(4));
  CHECK(c->maxUs == Approx(6));
  const NameStats* z = index.statsFor("Z");
  REQUIRE(z);
  CHECK(z->count == 2);
  CHECK(z->maxUs == 0);
  const NameStats* r = index.statsFor("R");
  REQUIRE(r);
  CHECK(r->count == 2);
  CHECK(r->selfUs == Approx(10));
  CHECK(index.startUs() == 0);
  CHECK(index.endUs() == 70);
}

TEST_CASE("degenerate ranges: touching a range is not taking part, zero-length slices at either end are", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  const uint32_t rowA = index.trace().events[find(index, "P", 0)].thread;
  // [10,20]: P and its children only touch it at 10; Q fills it; Z at 15 and Z at 20 take part.
  const auto mid = index.aggregate(10, 20, {rowA});
  CHECK(group(mid, "P") == nullptr);
  CHECK(group(mid, "C") == nullptr);
  REQUIRE(group(mid, "Q"));
  CHECK(group(mid, "Q")->count == 1);
  CHECK(group(mid, "Q")->wallUs == Approx(10));
  CHECK(group(mid, "Q")->selfUs == Approx(10));
  REQUIRE(group(mid, "Z"));
  CHECK(group(mid, "Z")->count == 2);
  CHECK(group(mid, "Z")->wallUs == 0);
  CHECK(group(mid, "Z")->minUs == 0);
  CHECK(mid.total.count == 3);
  CHECK(mid.total.wallUs == Approx(10));
  // [0,10]: P and both C; Q starts at 10 and does not take part.
  const auto first = index.aggregate(0, 10, {rowA});
  CHECK(group(first, "Q") == nullptr);
  REQUIRE(group(first, "C"));
  CHECK(group(first, "C")->count == 2);
  CHECK(group(first, "C")->wallUs == Approx(10));  // touching parts make one run of 10
  CHECK(group(first, "C")->selfUs == Approx(10));
  CHECK(group(first, "C")->minUs == Approx(4));
  CHECK(group(first, "C")->maxUs == Approx(6));
  CHECK(group(first, "P")->wallUs == Approx(10));
  CHECK(group(first, "P")->selfUs == Approx(0).margin(1e-12));
  CHECK(first.total.count == 3);
  CHECK(first.total.wallUs == Approx(10));
  CHECK(selfSum(first) == Approx(first.total.wallUs));
  // An empty range at 20: only the zero-length Z there.
  const auto at20 = index.aggregate(20, 20, {rowA});
  CHECK(at20.total.count == 1);
  CHECK(at20.total.wallUs == 0);
  REQUIRE(group(at20, "Z"));
  // A range ending where a zero-length slice sits; one starting where it sits.
  CHECK(index.aggregate(16, 20, {rowA}).total.count == 2);  // Q and Z at 20
  CHECK(index.aggregate(15, 15, {rowA}).total.count == 1);  // Z: Q's clipped part [15,15] has no length
}

TEST_CASE("degenerate ranges: a row of zero-length slices exactly at the range's start", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  const uint32_t rowC = index.trace().events[find(index, "M", 5)].thread;
  CHECK(index.aggregate(5, 9, {rowC}).total.count == 2);
  CHECK(index.aggregate(0, 5, {rowC}).total.count == 2);
  CHECK(index.aggregate(5, 5, {rowC}).total.count == 2);
  CHECK(index.aggregate(5.5, 9, {rowC}).total.count == 0);
  // Whole trace, every row: the busy time of each row adds.
  const auto all = index.aggregate(0, 100);
  CHECK(all.total.count == 12);
  CHECK(all.total.wallUs == Approx(30 + 20));  // row a: [0,20] and [30,40]; row b: [50,70]
  CHECK(selfSum(all) == Approx(all.total.wallUs));
  CHECK(group(all, "R")->wallUs == Approx(10));  // identical slices: one union
  CHECK(group(all, "R")->sumUs == Approx(20));
}

TEST_CASE("degenerate search: matches at equal starts walk in index order, touching ends do not count", "[profile][traceindex][degenerate]") {
  const TraceIndex index(degenerateTrace());
  const uint32_t r1 = find(index, "R", 30, 0), r2 = find(index, "R", 30, 1);
  const TraceSearch r = index.search("R");
  CHECK(r.count == 2);
  CHECK(index.nextMatch(r, {30, -1}) == r1);
  CHECK(index.nextMatch(r, index.cursorAt(r1)) == r2);
  CHECK_FALSE(index.nextMatch(r, index.cursorAt(r2)).has_value());
  CHECK(index.prevMatch(r, index.cursorAt(r2)) == r1);
  CHECK_FALSE(index.prevMatch(r, index.cursorAt(r1)).has_value());
  const TraceSearch q = index.search("q");
  CHECK(index.countMatches(q, 20, 30) == 0);  // Q ends at 20
  CHECK(index.countMatches(q, 12, 13) == 1);
  // Q starts where [0,10] ends: only touching, so neither search nor the range table counts it.
  CHECK(index.countMatches(q, 0, 10) == 0);
  CHECK(group(index.aggregate(0, 10, {}, GroupBy::Name), "Q") == nullptr);
  CHECK(index.countMatches(r, 20, 30) == 0);
  CHECK(index.countMatches(r, 20, 30.5) == 2);
  CHECK(index.countMatches(index.search("Z"), 20, 25) == 1);
  CHECK(index.countMatches(index.search("Z"), 15, 15) == 1);
  CHECK(index.countMatches(index.search("Z"), 0, 14.5) == 0);
  CHECK(index.countMatches(index.search("M"), 5, 5) == 2);
}

TEST_CASE("degenerate ranges: equal walls sort by key, a reversed range is the same range, groups without the arg", "[profile][traceindex][degenerate]") {
  Trace t;
  t.threadNames[{1, 1}] = "a";
  TraceEvent b{'X', "b", "", 1, 1, 0, 5, {{"section_id", 2.0}, {"section", std::string("sb")}}};
  TraceEvent a{'X', "a", "", 1, 1, 5, 5, {{"section_id", 1.0}, {"section", std::string("sa")}}};
  TraceEvent c{'X', "c", "", 1, 1, 10, 5, {}};
  TraceEvent z{'X', "z", "", 1, 1, 15, 0, {}};
  t.events = {b, a, c, z};
  const TraceIndex index(std::make_shared<const CompactTrace>(compactTrace(t)));
  const auto byName = index.aggregate(0, 15);
  REQUIRE(byName.groups.size() == 4);
  CHECK(byName.groups[0].key == "a");  // a, b and c each 5 us: by key
  CHECK(byName.groups[1].key == "b");
  CHECK(byName.groups[2].key == "c");
  CHECK(byName.groups[3].key == "z");  // zero wall last
  CHECK(byName.groups[3].count == 1);
  CHECK(byName.groups[3].minUs == 0);
  CHECK(byName.groups[3].maxUs == 0);
  const auto reversed = index.aggregate(15, 0);
  CHECK(reversed.startUs == 0);
  CHECK(reversed.endUs == 15);
  CHECK(reversed.total.count == byName.total.count);
  CHECK(reversed.total.wallUs == Approx(byName.total.wallUs));
  const auto bySection = index.aggregate(0, 15, {}, GroupBy::Section);
  REQUIRE(bySection.groups.size() == 3);
  CHECK(bySection.groups[0].key == "");  // c and z have no section: one group of 5 us, "" sorts first
  CHECK(bySection.groups[0].count == 2);
  CHECK(bySection.groups[1].key == "1 sa");
  CHECK(bySection.groups[2].key == "2 sb");
  CHECK(index.statsFor("z")->minUs == 0);
  CHECK(index.statsFor("z")->meanUs() == 0);
}

TEST_CASE("degenerate mirrors: copies of nested slices with one start, a zero-length copy, a near copy", "[profile][traceindex][degenerate]") {
  // Row 0: A [0,10] { B [0,4] }, C [10,10] (zero length where A ends).
  // Row 2 copies B and C (marked as mirrors): a mirror row of row 0.
  // Row 3 holds a marked A [0,9]: no slice of row 0 is that, so row 3 counts as itself.
  Trace t;
  t.metadataJson["mirrors"] = R"({"category":"mirror","of_tid":0})";
  auto slice = [](const std::string& name, const std::string& cat, int64_t tid, double ts, double dur) {
    return TraceEvent{'X', name, cat, 1, tid, ts, dur, {}};
  };
  t.events = {slice("A", "forward", 0, 0, 10),        slice("B", "forward", 0, 0, 4),
              slice("C", "forward", 0, 10, 0),        slice("B", "forward,mirror", 2, 0, 4),
              slice("C", "forward,mirror", 2, 10, 0), slice("A", "forward,mirror", 3, 0, 9)};
  const TraceIndex index(std::make_shared<const CompactTrace>(compactTrace(t)));
  const uint32_t row0 = index.trace().events[find(index, "C", 10, 0)].thread;
  const uint32_t row2 = index.trace().events[find(index, "C", 10, 1)].thread;
  const uint32_t row3 = index.trace().events[find(index, "A", 0, 1)].thread;
  REQUIRE(row0 != row2);
  CHECK(index.isMirrorRow(row2));
  CHECK(index.mirrorOf(row2) == row0);
  CHECK_FALSE(index.isMirrorRow(row3));
  CHECK_FALSE(index.isMirrorRow(row0));
  CHECK(index.statsFor("B")->count == 1);  // the copy is not counted again
  CHECK(index.statsFor("C")->count == 1);
  CHECK(index.statsFor("A")->count == 2);  // row 3's A is its own
  const auto all = index.aggregate(0, 10);
  CHECK(all.total.count == 4);  // A, B, C of row 0 and row 3's A; not the copies
  CHECK(group(all, "C")->count == 1);
  const auto copies = index.aggregate(0, 10, {row2});
  CHECK(copies.total.count == 2);  // asked alone, the mirror row stands for its calls
  CHECK(copies.total.wallUs == Approx(4));
  const auto both = index.aggregate(0, 10, {row0, row2});
  CHECK(both.total.count == 3);
  CHECK(both.total.wallUs == Approx(10));
}
