// TraceIndex: nesting, per-name statistics and search. Aggregation over a
// range is in TraceAggregate.cpp.
#include "profile/TraceIndex.h"

#include <algorithm>
#include <cctype>
#include <mutex>

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

// One pass per row with a stack of open slices (the timeline's lane rule).
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
  std::vector<uint32_t> open;
  for (uint32_t row = 0; row < rows; ++row) {
    open.clear();
    for (uint32_t i = m_rowBegin[row]; i < m_rowBegin[row + 1]; ++i) {
      const CompactEvent& e = events[i];
      const double end = e.ts + e.dur;
      noteSpan(e.ts, end);
      if (e.ph != 'X') continue;
      ++m_sliceCount;
      while (!open.empty() && events[open.back()].ts + events[open.back()].dur <= e.ts) open.pop_back();
      m_depth[i] = static_cast<uint16_t>(std::min<size_t>(open.size(), 65535));
      m_self[i] = e.dur;
      if (!open.empty()) {
        const uint32_t p = open.back();
        m_parent[i] = p;
        m_self[p] -= std::max(0.0, std::min(end, events[p].ts + events[p].dur) - e.ts);
      }
      open.push_back(i);
      m_rowMaxDur[row] = std::max(m_rowMaxDur[row], e.dur);
    }
  }
  for (double& self : m_self) self = std::max(0.0, self);  // rounding of nested sums
}

// Running statistics per name, in one pass.
void TraceIndex::collectNameStats() {
  const auto& events = m_trace->events;
  m_statsSlot.assign(m_trace->strings.size(), kNoSlice);
  for (uint32_t i = 0; i < events.size(); ++i) {
    const CompactEvent& e = events[i];
    if (e.ph != 'X') continue;
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
    lazy.nameSlices.resize(m_sliceCount);
    std::vector<uint32_t> next(lazy.nameOffsets.begin(), lazy.nameOffsets.end() - 1);
    for (uint32_t i = 0; i < events.size(); ++i)
      if (events[i].ph == 'X') lazy.nameSlices[next[m_statsSlot[events[i].name]]++] = i;
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
