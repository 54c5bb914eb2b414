// TraceIndex: nesting, per-name statistics and search. Aggregation over a
// range is in TraceAggregate.cpp.
#include "profile/TraceIndex.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>
#include <numeric>

#include "profile/ParallelRows.h"
#include "profile/RowSearch.h"
#include "profile/SelfTimeSweep.h"
#include "profile/TraceIndexLazy.h"

namespace dfc::profile {
namespace {

bool containsIgnoringCase(std::string_view haystack, std::string_view needle) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != haystack.end();
}

}  // namespace

std::string_view groupByName(GroupBy groupBy) {
  switch (groupBy) {
    case GroupBy::Name:
      return "name";
    case GroupBy::Section:
      return "section";
    case GroupBy::Hypersection:
      return "hypersection";
  }
  return "name";
}

std::optional<GroupBy> groupByFromName(std::string_view name) {
  for (GroupBy g : {GroupBy::Name, GroupBy::Section, GroupBy::Hypersection})
    if (groupByName(g) == name) return g;
  return std::nullopt;
}

TraceIndex::TraceIndex(std::shared_ptr<const CompactTrace> trace)
    : m_trace(std::move(trace)), m_lazy(std::make_unique<Lazy>()) {
  nestRows();
  findMirrorRows();
  collectNameStats();
  for (const CounterSeries& series : m_trace->counters)
    for (double t : series.ts) noteSpan(t, t);
}

TraceIndex::~TraceIndex() = default;
TraceIndex::TraceIndex(TraceIndex&&) noexcept = default;
TraceIndex& TraceIndex::operator=(TraceIndex&&) noexcept = default;

void TraceIndex::noteSpan(double startUs, double endUs) {
  m_startUs = m_spanKnown ? std::min(m_startUs, startUs) : startUs;
  m_endUs = m_spanKnown ? std::max(m_endUs, endUs) : endUs;
  m_spanKnown = true;
}

// One pass per row with the stack of open slices (the timeline's lane rule),
// which also gives each slice its self time (SelfTimeSweep.h). Rows are
// independent: every core takes rows, biggest first.
void TraceIndex::nestRows() {
  const auto& events = m_trace->events;
  const size_t rows = m_trace->threads.size();
  m_rowBegin.assign(rows + 1, 0);
  for (const CompactEvent& e : events) ++m_rowBegin[e.thread + 1];
  for (size_t r = 1; r <= rows; ++r) m_rowBegin[r] += m_rowBegin[r - 1];
  m_rowMaxDur.assign(rows, 0.0);
  m_depth.assign(events.size(), 0);
  m_parent.assign(events.size(), kNoSlice);
  m_self.assign(events.size(), 0.0);
  struct RowFacts {
    size_t slices = 0;
    double start = 0, end = 0;
  };
  std::vector<RowFacts> facts(rows);
  std::vector<uint32_t> order(rows);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return rowEnd(a) - rowBegin(a) > rowEnd(b) - rowBegin(b); });
  parallelItems(rows, [&](size_t, size_t k) {
    const uint32_t row = order[k];
    SelfTimeSweep sweep(events);
    auto attribute = [&](uint32_t event, double from, double to) { m_self[event] += to - from; };
    RowFacts& f = facts[row];
    for (uint32_t i = m_rowBegin[row]; i < m_rowBegin[row + 1]; ++i) {
      const CompactEvent& e = events[i];
      f.start = i == m_rowBegin[row] ? e.ts : std::min(f.start, e.ts);
      f.end = i == m_rowBegin[row] ? e.ts + e.dur : std::max(f.end, e.ts + e.dur);
      if (e.ph != 'X') continue;
      ++f.slices;
      sweep.advance(e.ts, attribute);
      m_depth[i] = static_cast<uint16_t>(std::min<size_t>(sweep.depth(), 65535));
      m_parent[i] = sweep.parent();
      sweep.push(i);
      m_rowMaxDur[row] = std::max(m_rowMaxDur[row], e.dur);
    }
    sweep.advance(std::numeric_limits<double>::infinity(), attribute);
  });
  for (uint32_t row = 0; row < rows; ++row) {
    m_sliceCount += facts[row].slices;
    if (rowEnd(row) > rowBegin(row)) noteSpan(facts[row].start, facts[row].end);
  }
}

namespace {

}  // namespace

// A row whose every slice is marked as a mirror and found, unmarked, on the
// row it copies (same start, duration and name) is a mirror row.
void TraceIndex::findMirrorRows() {
  m_mirrorOf.assign(rowCount(), kNoRow);
  const auto& events = m_trace->events;
  const int64_t tid = mirroredTid(*m_trace);  // CompactTrace.h
  parallelItems(rowCount(), [&](size_t, size_t k) {
    const auto row = static_cast<uint32_t>(k);
    bool marked = rowEnd(row) > rowBegin(row);
    for (uint32_t i = rowBegin(row); i < rowEnd(row) && marked; ++i) marked = events[i].ph != 'X' || events[i].isMirror();
    if (!marked) return;
    const CompactThread& t = m_trace->threads[row];
    for (uint32_t o = 0; o < rowCount(); ++o)
      if (o != row && m_trace->threads[o].pid == t.pid && m_trace->threads[o].tid == tid && copiesRow(row, o))
        m_mirrorOf[row] = o;
  });
}

bool TraceIndex::copiesRow(uint32_t mirror, uint32_t original) const {
  const auto& events = m_trace->events;
  uint32_t at = rowBegin(original);
  const uint32_t last = rowEnd(original);
  for (uint32_t i = rowBegin(mirror); i < rowEnd(mirror); ++i)
    if (events[i].ph == 'X' && originalOf(events, events[i], at, last) == last) return false;
  return true;
}

// Running statistics per name, in one pass over the counted rows (a
// mirrored call counts on its original's row).
void TraceIndex::collectNameStats() {
  const auto& events = m_trace->events;
  m_statsSlot.assign(m_trace->strings.size(), kNoSlice);
  for (uint32_t i = 0; i < events.size(); ++i) {
    const CompactEvent& e = events[i];
    if (e.ph != 'X' || isMirrorRow(e.thread)) continue;
    uint32_t& slot = m_statsSlot[e.name];
    if (slot == kNoSlice) {
      slot = static_cast<uint32_t>(m_stats.size());
      m_stats.push_back({e.name, 0, 0, 0, e.dur, e.dur});
    }
    NameStats& s = m_stats[slot];
    ++s.count;
    s.totalUs += e.dur;
    s.selfUs += m_self[i];
    s.minUs = std::min(s.minUs, e.dur);
    s.maxUs = std::max(s.maxUs, e.dur);
  }
}

// Each name's slices in time order: bucketed by name in one pass (row after
// row), each bucket then sorted by start.
std::pair<const uint32_t*, const uint32_t*> TraceIndex::slicesNamed(uint32_t slot) const {
  Lazy& lazy = *m_lazy;
  std::call_once(lazy.namesOnce, [&] {
    const auto& events = m_trace->events;
    lazy.nameOffsets.assign(m_stats.size() + 1, 0);
    for (size_t k = 0; k < m_stats.size(); ++k)
      lazy.nameOffsets[k + 1] = lazy.nameOffsets[k] + static_cast<uint32_t>(m_stats[k].count);
    lazy.nameSlices.resize(lazy.nameOffsets.back());
    std::vector<uint32_t> next(lazy.nameOffsets.begin(), lazy.nameOffsets.end() - 1);
    for (uint32_t i = 0; i < events.size(); ++i)
      if (events[i].ph == 'X' && !isMirrorRow(events[i].thread)) lazy.nameSlices[next[m_statsSlot[events[i].name]]++] = i;
    auto before = [&](uint32_t a, uint32_t b) {
      return events[a].ts != events[b].ts ? events[a].ts < events[b].ts : a < b;
    };
    for (size_t k = 0; k < m_stats.size(); ++k) {
      auto first = lazy.nameSlices.begin() + lazy.nameOffsets[k];
      auto last = lazy.nameSlices.begin() + lazy.nameOffsets[k + 1];
      if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    }
  });
  return {lazy.nameSlices.data() + lazy.nameOffsets[slot], lazy.nameSlices.data() + lazy.nameOffsets[slot + 1]};
}

std::vector<uint32_t> TraceIndex::children(uint32_t event) const {
  std::vector<uint32_t> out;
  if (event >= m_parent.size()) return out;
  const auto& events = m_trace->events;
  const double end = events[event].ts + events[event].dur;
  // Descendants follow their ancestor in the row's start order, and start before it ends.
  for (uint32_t i = event + 1; i < rowEnd(events[event].thread) && events[i].ts <= end; ++i) {
    if (m_parent[i] == event) out.push_back(i);
    else if (events[i].ph == 'X' && m_depth[i] <= m_depth[event]) break;
  }
  return out;
}

std::vector<uint32_t> TraceIndex::countedRows(const std::vector<uint32_t>& rows) const {
  std::vector<bool> asked(rowCount(), rows.empty());
  for (uint32_t r : rows)
    if (r < rowCount()) asked[r] = true;
  std::vector<uint32_t> out;
  for (uint32_t r = 0; r < rowCount(); ++r)
    if (asked[r] && !(isMirrorRow(r) && asked[m_mirrorOf[r]])) out.push_back(r);
  return out;
}

const NameStats* TraceIndex::statsFor(std::string_view name) const {
  for (const NameStats& s : m_stats)
    if (m_trace->string(s.name) == name) return &s;
  return nullptr;
}

TraceSearch TraceIndex::search(std::string_view text) const {
  TraceSearch result;
  result.text = std::string(text);
  if (text.empty()) return result;
  for (const NameStats& s : m_stats) {
    if (!containsIgnoringCase(m_trace->string(s.name), text)) continue;
    result.names.push_back(s);
    result.count += s.count;
  }
  std::sort(result.names.begin(), result.names.end(), [&](const NameStats& a, const NameStats& b) {
    return a.count != b.count ? a.count > b.count : m_trace->string(a.name) < m_trace->string(b.name);
  });
  return result;
}

std::optional<uint32_t> TraceIndex::nextMatch(const TraceSearch& search, TimeCursor from) const {
  const auto& events = m_trace->events;
  auto after = [&](uint32_t e) { return events[e].ts != from.us ? events[e].ts > from.us : int64_t{e} > from.event; };
  std::optional<uint32_t> best;
  for (const NameStats& s : search.names) {
    auto [first, last] = slicesNamed(m_statsSlot[s.name]);
    const uint32_t* it = std::partition_point(first, last, [&](uint32_t e) { return !after(e); });
    if (it == last) continue;
    if (!best || events[*it].ts < events[*best].ts || (events[*it].ts == events[*best].ts && *it < *best)) best = *it;
  }
  return best;
}

// Per name: the slices starting by t1 (binary search on start), walked back
// while they could still reach t0 (no slice of the name is longer than its max).
size_t TraceIndex::countMatches(const TraceSearch& search, double t0, double t1) const {
  const auto& events = m_trace->events;
  size_t count = 0;
  for (const NameStats& s : search.names) {
    auto [first, last] = slicesNamed(m_statsSlot[s.name]);
    const uint32_t* end = std::partition_point(first, last, [&](uint32_t e) { return events[e].ts <= t1; });
    for (const uint32_t* it = end; it != first && events[*(it - 1)].ts >= t0 - s.maxUs;) {
      const CompactEvent& e = events[*--it];
      // As the range table counts: overlapping for a positive time, or zero-length inside.
      count += (e.ts < t1 && e.ts + e.dur > t0) || (e.dur == 0 && e.ts >= t0);
    }
  }
  return count;
}

std::optional<uint32_t> TraceIndex::prevMatch(const TraceSearch& search, TimeCursor from) const {
  const auto& events = m_trace->events;
  auto before = [&](uint32_t e) { return events[e].ts != from.us ? events[e].ts < from.us : int64_t{e} < from.event; };
  std::optional<uint32_t> best;
  for (const NameStats& s : search.names) {
    auto [first, last] = slicesNamed(m_statsSlot[s.name]);
    const uint32_t* it = std::partition_point(first, last, before);
    if (it == first) continue;
    --it;
    if (!best || events[*it].ts > events[*best].ts || (events[*it].ts == events[*best].ts && *it > *best)) best = *it;
  }
  return best;
}

}  // namespace dfc::profile
