// TraceIndex on a small hand-made nested trace: nesting and self time,
// per-name statistics, search and walking the matches, range aggregation
// (wall as a union per row, summed over rows; self without children;
// clipping, rows, groups).
#include <catch2/catch.hpp>
#include <memory>

#include "profile/CompactTrace.h"
#include "profile/TraceIndex.h"

using namespace dfc::profile;

namespace {

Args sectionArgs(double id, const std::string& hypersection, const std::string& name = {}) {
  Args args{{"section_id", id}};
  if (!name.empty()) args.emplace_back("section", name);
  args.emplace_back("hypersection", hypersection);
  return args;
}

// Row A (tid 1):  outer [0,100] { inner [10,30] { leaf [15,20] }, inner [50,90] },  outer [120,160]
// Row B (tid 2):  inner [20,60],  io [70,80]
// Full self times: outer 100-20-40 = 40 and 40; inner 20-5 = 15, 40, 40; leaf 5; io 10.
std::shared_ptr<const CompactTrace> nestedTrace() {
  Trace t;
  t.threadNames[{1, 1}] = "A";
  t.threadNames[{1, 2}] = "B";
  t.events = {
      {'X', "outer", "", 1, 1, 0, 100, sectionArgs(1, "hsA", "s1")},
      {'X', "inner", "", 1, 1, 10, 20, sectionArgs(2, "hsB")},
      {'X', "leaf", "", 1, 1, 15, 5, {}},
      {'X', "inner", "", 1, 1, 50, 40, sectionArgs(2, "hsB")},
      {'X', "outer", "", 1, 1, 120, 40, sectionArgs(1, "hsA", "s1")},
      {'X', "inner", "", 1, 2, 20, 40, sectionArgs(3, "hsB")},
      {'X', "io", "", 1, 2, 70, 10, {}},
      {'i', "mark", "", 1, 2, 75, 0, {}},
      {'C', "loss", "", 1, 0, 170, 0, {{"loss", 0.5}}},
  };
  return std::make_shared<const CompactTrace>(compactTrace(t));
}

const AggregateGroup* group(const Aggregate& a, const std::string& key) {
  for (const auto& g : a.groups)
    if (g.key == key) return &g;
  return nullptr;
}

uint32_t eventAt(const TraceIndex& index, uint32_t row, double ts) {
  for (uint32_t i = index.rowBegin(row); i < index.rowEnd(row); ++i)
    if (index.trace().events[i].ts == ts && index.trace().events[i].ph == 'X') return i;
  FAIL("no slice at " << ts);
  return 0;
}

}  // namespace

TEST_CASE("TraceIndex nests slices per row and keeps per-name statistics", "[profile][traceindex]") {
  const TraceIndex index(nestedTrace());
  REQUIRE(index.rowCount() == 2);
  CHECK(index.sliceCount() == 7);
  CHECK(index.startUs() == 0);
  CHECK(index.endUs() == 170);  // the loss sample is the last thing in the trace
  const uint32_t leaf = eventAt(index, 0, 15);
  const uint32_t inner = eventAt(index, 0, 10);
  CHECK(index.depth(leaf) == 2);
  CHECK(index.parent(leaf) == inner);
  CHECK(index.parent(eventAt(index, 0, 0)) == TraceIndex::kNoSlice);
  CHECK(index.selfUs(inner) == Approx(15));
  CHECK(index.selfUs(eventAt(index, 0, 0)) == Approx(40));

  const NameStats* outer = index.statsFor("outer");
  REQUIRE(outer);
  CHECK(outer->count == 2);
  CHECK(outer->totalUs == Approx(140));
  CHECK(outer->selfUs == Approx(80));
  CHECK(outer->minUs == 40);
  CHECK(outer->maxUs == 100);
  CHECK(outer->meanUs() == Approx(70));
  const NameStats* innerStats = index.statsFor("inner");
  REQUIRE(innerStats);
  CHECK(innerStats->count == 3);
  CHECK(innerStats->selfUs == Approx(15 + 40 + 40));
  CHECK(index.statsFor("mark") == nullptr);  // an instant is not a slice
}

TEST_CASE("TraceIndex search counts matching names and walks matches in time order", "[profile][traceindex]") {
  const TraceIndex index(nestedTrace());
  const TraceSearch o = index.search("O");  // outer (2), io (1): case-insensitive substring
  REQUIRE(o.names.size() == 2);
  CHECK(index.trace().string(o.names[0].name) == "outer");
  CHECK(o.names[0].count == 2);
  CHECK(index.trace().string(o.names[1].name) == "io");
  CHECK(o.count == 3);
  CHECK(index.search("zzz").count == 0);
  CHECK(index.search("").names.empty());

  const TraceSearch inner = index.search("INNER");
  REQUIRE(inner.count == 3);
  // Forward from the start: row A's 10, row B's 20, row A's 50, then nothing.
  std::vector<double> starts;
  for (auto at = index.nextMatch(inner, {0}); at; at = index.nextMatch(inner, index.cursorAt(*at)))
    starts.push_back(index.trace().events[*at].ts);
  CHECK(starts == std::vector<double>{10, 20, 50});
  // Backward from 55: 50, 20, 10.
  starts.clear();
  for (auto at = index.prevMatch(inner, {55}); at; at = index.prevMatch(inner, index.cursorAt(*at)))
    starts.push_back(index.trace().events[*at].ts);
  CHECK(starts == std::vector<double>{50, 20, 10});
  // From exactly a match's start, next includes it.
  CHECK(index.trace().events[*index.nextMatch(inner, {20})].ts == 20);
}

TEST_CASE("TraceIndex aggregates a range by name without counting nested time twice", "[profile][traceindex]") {
  const TraceIndex index(nestedTrace());
  const Aggregate all = index.aggregate(0, 160);
  // total: 7 slices; wall = row A busy [0,100] + [120,160] = 140, plus row B
  // busy [20,60] + [70,80] = 50: 190, and self adds up to it (row A 140 +
  // row B 50). A union across rows gave 140 here, less than the self time.
  // The old summary summed durations: 140 + 100 + 5 + 10 = 255.
  CHECK(all.total.count == 7);
  CHECK(all.total.wallUs == Approx(190));
  CHECK(all.total.selfUs == Approx(190));
  CHECK(all.total.sumUs == Approx(255));
  REQUIRE(all.groups.size() == 4);
  CHECK(all.groups[0].key == "outer");  // longest wall first
  // inner: [10,30] u [50,90] on row A (60) + [20,60] on row B (40) = 100; self 15 + 40 + 40 = 95.
  const AggregateGroup* inner = group(all, "inner");
  REQUIRE(inner);
  CHECK(inner->count == 3);
  CHECK(inner->wallUs == Approx(100));
  CHECK(inner->selfUs == Approx(95));
  CHECK(inner->minUs == 20);
  CHECK(inner->maxUs == 40);
  CHECK(inner->meanUs() == Approx(100.0 / 3));
  CHECK(group(all, "outer")->wallUs == Approx(140));
  CHECK(group(all, "outer")->selfUs == Approx(80));
}

TEST_CASE("TraceIndex clips slices to the range and to the chosen rows", "[profile][traceindex]") {
  const TraceIndex index(nestedTrace());
  // [25,130]: outer [25,100] (75) and [120,130] (10); its self 75 - 5 (inner [25,30]) - 40 (inner [50,90]) = 30, + 10.
  // inner [25,30] u [50,90] on row A (45) + [25,60] on row B (35) = 80; self 5 + 40 + 35 = 80
  // (leaf lies before 25). io 10. total wall: row A [25,100] + [120,130] = 85, row B 35 + 10 = 45:
  // 130; self 40 + 80 + 10 = 130.
  const Aggregate a = index.aggregate(130, 25);  // either order
  CHECK(a.startUs == 25);
  CHECK(a.total.count == 6);
  CHECK(a.total.wallUs == Approx(130));
  CHECK(a.total.selfUs == Approx(130));
  const AggregateGroup* outer = group(a, "outer");
  REQUIRE(outer);
  CHECK(outer->wallUs == Approx(85));
  CHECK(outer->selfUs == Approx(40));
  CHECK(outer->minUs == Approx(10));
  CHECK(outer->maxUs == Approx(75));
  const AggregateGroup* inner = group(a, "inner");
  REQUIRE(inner);
  CHECK(inner->wallUs == Approx(80));
  CHECK(inner->selfUs == Approx(80));
  CHECK(group(a, "leaf") == nullptr);

  // Row B alone: inner [25,60] = 35, io 10.
  const Aggregate b = index.aggregate(25, 130, {1});
  CHECK(b.total.count == 2);
  CHECK(b.total.wallUs == Approx(45));
  CHECK(group(b, "inner")->wallUs == Approx(35));
  // A range touching nothing.
  CHECK(index.aggregate(161, 165).total.count == 0);
}

TEST_CASE("TraceIndex groups by section and hypersection from the slice args", "[profile][traceindex]") {
  const TraceIndex index(nestedTrace());
  const Aggregate sections = index.aggregate(0, 160, {}, GroupBy::Section);
  REQUIRE(sections.groups.size() == 4);
  // "1 s1": both outers, wall 140, self 80; "2": row A's inners [10,30] + [50,90] = 60, self 55;
  // "3": row B's inner, 40; "": leaf and io (no args), 5 + 10.
  const AggregateGroup* s1 = group(sections, "1 s1");
  REQUIRE(s1);
  CHECK(s1->count == 2);
  CHECK(s1->wallUs == Approx(140));
  CHECK(group(sections, "2")->wallUs == Approx(60));
  CHECK(group(sections, "2")->selfUs == Approx(55));
  CHECK(group(sections, "3")->wallUs == Approx(40));
  CHECK(group(sections, "")->count == 2);
  CHECK(group(sections, "")->wallUs == Approx(15));

  const Aggregate hs = index.aggregate(0, 160, {}, GroupBy::Hypersection);
  REQUIRE(hs.groups.size() == 3);
  CHECK(group(hs, "hsA")->wallUs == Approx(140));
  CHECK(group(hs, "hsB")->count == 3);
  CHECK(group(hs, "hsB")->wallUs == Approx(100));  // row A 60 + row B 40
  CHECK(group(hs, "hsB")->selfUs == Approx(95));
  CHECK(groupByFromName("hypersection") == GroupBy::Hypersection);
  CHECK(!groupByFromName("thread"));
}
