// Issue 38: every number of a range table true. A section call shown on the
// whole-model row and mirrored on its hyperfunction row is counted once;
// self <= wall for every group; the self times add up to the covered wall.
// A hand-worked mirrored trace first, then a property test over random
// nested traces (mirrored rows, touching, zero-length and identical-start
// slices, others' rows whose slices cross), through both the in-memory and
// the JSON reader.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceIndex.h"

using namespace dfc::profile;

namespace {

const AggregateGroup* group(const Aggregate& a, const std::string& key) {
  for (const auto& g : a.groups)
    if (g.key == key) return &g;
  return nullptr;
}

TraceEvent slice(const std::string& name, const std::string& cat, int64_t tid, double ts, double dur, double section = -1) {
  TraceEvent e{'X', name, cat, 1, tid, ts, dur, {}};
  if (section >= 0) e.args = {{"section_id", section}, {"hypersection", name}};
  return e;
}

// Row 0 (whole model run): A [0,10], B [10,15] (touching A), C [15,15] (zero
// length), A [20,30]; row 2 mirrors A and C, row 3 mirrors B and the second
// A without args (as our writer does: the reader gives them their originals'
// keys); row 1 (host) has its own H [0,4]. Sections: A is 0, B 1, C 2.
std::shared_ptr<const CompactTrace> mirroredTrace() {
  Trace t;
  t.metadataJson["mirrors"] = R"({"category":"mirror","of_tid":0})";
  t.metadataJson["sections"] = R"({"0":{"name":"conv"},"1":{"name":"relu"},"2":{"name":"noop"}})";
  t.events = {
      slice("A", "forward", 0, 0, 10, 0),        slice("B", "forward", 0, 10, 5, 1),
      slice("C", "forward", 0, 15, 0, 2),        slice("A", "forward", 0, 20, 10, 0),
      slice("A", "forward,mirror", 2, 0, 10, 0), slice("C", "forward,mirror", 2, 15, 0, 2),
      slice("B", "forward,mirror", 3, 10, 5),    slice("A", "forward,mirror", 3, 20, 10),
      slice("H", "host", 1, 0, 4),
  };
  return std::make_shared<const CompactTrace>(compactTrace(t));
}

}  // namespace

TEST_CASE("a mirrored section call counts once, whichever rows are asked about", "[profile][truth]") {
  const TraceIndex index(mirroredTrace());
  REQUIRE(index.rowCount() == 4);  // tids 0, 1, 2, 3
  CHECK(index.isMirrorRow(2));
  CHECK(index.isMirrorRow(3));
  CHECK_FALSE(index.isMirrorRow(0));
  CHECK_FALSE(index.isMirrorRow(1));
  // Every row: the four calls once, plus H. Wall: row 0 busy [0,15] + [20,30] = 25, host 4.
  const Aggregate all = index.aggregate(0, 30, {}, GroupBy::Section);
  CHECK(all.total.count == 5);
  CHECK(all.total.wallUs == Approx(29));
  CHECK(all.total.selfUs == Approx(29));
  CHECK(group(all, "0 conv")->count == 2);
  CHECK(group(all, "0 conv")->wallUs == Approx(20));
  CHECK(group(all, "0 conv")->selfUs == Approx(20));
  CHECK(group(all, "1 relu")->count == 1);
  CHECK(group(all, "2 noop")->count == 1);  // zero length, inside the range
  CHECK(group(all, "2 noop")->wallUs == 0);
  // The mirrors alone (a user dragging over the hyperfunction rows): the same calls.
  const Aggregate mirrors = index.aggregate(0, 30, {2, 3}, GroupBy::Section);
  CHECK(mirrors.total.count == 4);
  CHECK(mirrors.total.wallUs == Approx(25));  // row 2: 10 + 0, row 3: 5 + 10
  REQUIRE(group(mirrors, "0 conv"));
  CHECK(group(mirrors, "0 conv")->count == 2);
  CHECK(group(mirrors, "1 relu")->count == 1);
  CHECK(group(mirrors, "2 noop")->count == 1);
  // The whole-model row and one mirror row: the mirror adds nothing.
  const Aggregate topAndOne = index.aggregate(0, 30, {0, 2});
  CHECK(topAndOne.total.count == 4);
  CHECK(topAndOne.total.wallUs == Approx(25));
  // Whole-trace figures and search count calls too: A twice, not four times.
  CHECK(index.statsFor("A")->count == 2);
  CHECK(index.search("a").count == 2);
  // A range from B's end: C (zero length at 15) and the second A.
  const Aggregate late = index.aggregate(15, 30);
  CHECK(late.total.count == 2);
  CHECK(group(late, "A")->wallUs == Approx(10));
}

TEST_CASE("a slice marked as a mirror without its original counts as itself", "[profile][truth]") {
  Trace t;
  t.events = {slice("A", "forward", 0, 0, 10), slice("A", "forward,mirror", 2, 0, 10),
              slice("Z", "forward,mirror", 3, 5, 1)};  // no Z on row 0: row 3 is no mirror
  const TraceIndex index(std::make_shared<const CompactTrace>(compactTrace(t)));
  CHECK(index.isMirrorRow(1));  // tid 2
  CHECK_FALSE(index.isMirrorRow(2));
  CHECK(index.aggregate(0, 10).total.count == 2);  // A once, Z
}

namespace {

// A random trace of one process: the whole-model row (tid 0) with nested
// calls, two mirror rows that copy some of them, a host row, and a foreign
// row whose slices may cross (start inside one and end after it).
struct RandomTrace {
  Trace trace;
  std::vector<std::pair<double, double>> copied;  // the calls copied to mirror rows

  explicit RandomTrace(unsigned seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
    trace.metadataJson["mirrors"] = R"({"category":"mirror","of_tid":0})";
    double t = 0;
    const int calls = 3 + static_cast<int>(rng() % 12);
    for (int c = 0; c < calls; ++c) {
      const double dur = chance(0.15) ? 0.0 : std::round(uniform(1, 20));
      addNested(rng, "s" + std::to_string(rng() % 5), t, dur, 0);
      t += dur + (chance(0.3) ? 0.0 : std::round(uniform(0, 5)));  // touching or a gap
    }
    for (int k = 0; k < 12; ++k) {  // the foreign row: crossing and identical starts
      const double ts = std::round(uniform(0, t + 5)), dur = std::round(uniform(0, 15));
      trace.events.push_back(slice("f" + std::to_string(rng() % 3), "other", 7, ts, dur));
      if (chance(0.2)) trace.events.push_back(slice("f0", "other", 7, ts, std::round(uniform(0, 15))));
    }
    trace.events.push_back(slice("host", "host", 1, 0, std::round(uniform(0, t))));
  }

  void addNested(std::mt19937& rng, const std::string& name, double ts, double dur, int depth) {
    const double section = static_cast<double>(rng() % 4);
    trace.events.push_back(slice(name, "forward", 0, ts, dur, section));
    if (rng() % 2 == 0) {  // a copy on mirror row 2 or 3
      trace.events.push_back(slice(name, "forward,mirror", 2 + static_cast<int>(rng() % 2), ts, dur, section));
      copied.emplace_back(ts, dur);
    }
    if (depth >= 3 || dur < 2) return;
    double at = ts;
    while (at < ts + dur && rng() % 3 != 0) {  // children, touching or spaced, never past the parent
      const double len = std::min<double>(ts + dur - at, 1 + rng() % static_cast<unsigned>(dur));
      addNested(rng, "c" + std::to_string(rng() % 3), at, len, depth + 1);
      at += len + (rng() % 2);
    }
  }
};

// The union of intervals, the reference for one row's busy time.
double unionLength(std::vector<std::pair<double, double>> parts) {
  std::sort(parts.begin(), parts.end());
  double total = 0, runStart = 0, runEnd = -1;
  bool open = false;
  for (const auto& [a, b] : parts) {
    if (open && a <= runEnd) {
      runEnd = std::max(runEnd, b);
      continue;
    }
    if (open) total += runEnd - runStart;
    runStart = a;
    runEnd = b;
    open = true;
  }
  return open ? total + runEnd - runStart : total;
}

void checkRange(const TraceIndex& index, double t0, double t1, const std::vector<uint32_t>& rows) {
  const auto counted = index.countedRows(rows);
  size_t count = 0;
  double busy = 0;
  for (uint32_t r : counted) {
    std::vector<std::pair<double, double>> parts;
    for (uint32_t i = index.rowBegin(r); i < index.rowEnd(r); ++i) {
      const CompactEvent& e = index.trace().events[i];
      const double a = std::max(e.ts, t0), b = std::min(e.ts + e.dur, t1);
      if (e.ph != 'X' || !(b > a || (e.dur == 0 && e.ts >= t0 && e.ts <= t1))) continue;
      ++count;
      parts.emplace_back(a, std::max(a, b));
    }
    busy += unionLength(parts);
  }
  for (GroupBy by : {GroupBy::Name, GroupBy::Section, GroupBy::Hypersection}) {
    const Aggregate agg = index.aggregate(t0, t1, rows, by);
    CHECK(agg.total.count == count);
    CHECK(agg.total.wallUs == Approx(busy).margin(1e-9));
    CHECK(agg.total.selfUs == Approx(agg.total.wallUs).margin(1e-9));  // self adds up to the covered wall
    size_t groupCount = 0;
    double groupSelf = 0;
    for (const AggregateGroup& g : agg.groups) {
      INFO("group " << g.key);
      CHECK(g.selfUs <= g.wallUs + 1e-9);
      CHECK(g.wallUs <= agg.total.wallUs + 1e-9);
      groupCount += g.count;
      groupSelf += g.selfUs;
    }
    CHECK(groupCount == count);
    CHECK(groupSelf == Approx(agg.total.selfUs).margin(1e-9));
  }
}

}  // namespace

TEST_CASE("random nested traces: counts, self <= wall, self adds up to the covered wall", "[profile][truth][property]") {
  for (unsigned seed = 1; seed <= 150; ++seed) {
    INFO("seed " << seed);
    const RandomTrace random(seed);
    // Through the JSON reader too, in one chunk and in many (the cores' chunks
    // merged): what is written reads back to the same figures.
    const std::string json = chromeTraceToJson(random.trace);
    auto parsed = parseCompactTrace(json, "random.json");
    setTraceChunkBytes(97 + seed % 200);
    auto chunked = parseCompactTrace(json, "random.json");
    setTraceChunkBytes(0);
    REQUIRE(parsed);
    REQUIRE(chunked);
    REQUIRE(chunked->events.size() == parsed->events.size());
    CHECK(chunked->strings.size() == parsed->strings.size());
    const Aggregate one = TraceIndex(std::make_shared<const CompactTrace>(*parsed)).aggregate(-1e9, 1e9, {}, GroupBy::Section);
    const Aggregate many = TraceIndex(std::make_shared<const CompactTrace>(*chunked)).aggregate(-1e9, 1e9, {}, GroupBy::Section);
    REQUIRE(one.groups.size() == many.groups.size());
    for (size_t g = 0; g < one.groups.size(); ++g) {
      CHECK(one.groups[g].key == many.groups[g].key);
      CHECK(one.groups[g].count == many.groups[g].count);
      CHECK(one.groups[g].wallUs == many.groups[g].wallUs);
    }
    for (auto trace : {std::make_shared<const CompactTrace>(compactTrace(random.trace)),
                       std::make_shared<const CompactTrace>(std::move(*parsed)),
                       std::make_shared<const CompactTrace>(std::move(*chunked))}) {
      const TraceIndex index(trace);
      std::mt19937 rng(seed * 7919);
      const double end = index.endUs() + 2;
      for (int k = 0; k < 6; ++k) {
        double t0 = std::round(std::uniform_real_distribution<double>(-2, end)(rng));
        double t1 = std::round(std::uniform_real_distribution<double>(-2, end)(rng));
        if (t1 < t0) std::swap(t0, t1);
        std::vector<uint32_t> rows;
        for (uint32_t r = 0; r < index.rowCount(); ++r)
          if (rng() % 2) rows.push_back(r);
        checkRange(index, t0, t1, rows);
        checkRange(index, t0, t1, {});
      }
      // The mirror rows never add a call: every row counts what the whole-model row alone does,
      // plus the host and foreign rows; the mirror rows alone count the copies.
      const auto all = index.aggregate(-1, end, {}).total.count;
      size_t others = 0;
      std::vector<uint32_t> mirrors;
      for (uint32_t r = 0; r < index.rowCount(); ++r) {
        if (index.isMirrorRow(r)) {
          mirrors.push_back(r);
        } else if (index.trace().threads[r].tid != 0) {
          others += index.aggregate(-1, end, {r}).total.count;
        }
      }
      CHECK(all == index.aggregate(-1, end, {0}).total.count + others);
      if (!mirrors.empty()) CHECK(index.aggregate(-1, end, mirrors).total.count == random.copied.size());
    }
  }
}
