// TraceIndex::aggregate: what a range of the trace holds, per name, section
// or hypersection. The definitions are in TraceIndex.h; this file walks each
// counted row once over the slices the range can touch.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "profile/SelfTimeSweep.h"
#include "profile/TraceIndex.h"

namespace dfc::profile {
namespace {

// Count, clipped-duration statistics, self time, and the union of clipped
// parts, which must see them in start order across all rows (merged runs).
struct GroupAccumulator {
  size_t count = 0;
  double sum = 0, self = 0, wall = 0;
  double min = std::numeric_limits<double>::max(), max = 0;
  double runStart = 0, runEnd = 0;
  bool runOpen = false;

  void add(double clippedUs, double selfUs) {
    ++count;
    sum += clippedUs;
    self += selfUs;
    min = std::min(min, clippedUs);
    max = std::max(max, clippedUs);
  }
  void cover(double start, double end) {
    if (runOpen && start <= runEnd) {
      runEnd = std::max(runEnd, end);
      return;
    }
    endRow();
    runStart = start;
    runEnd = end;
    runOpen = true;
  }
  void endRow() {  // walls add up over rows
    if (runOpen) wall += runEnd - runStart;
    runOpen = false;
  }
  AggregateGroup result(std::string key) const {
    return {std::move(key), count, wall, self, sum, count ? min : 0.0, max};
  }
};

}  // namespace

namespace {

// One aggregation: each counted row walked once, in start order, for counts,
// self times and each group's union of clipped parts on the row.
class Aggregator {
 public:
  Aggregator(const TraceIndex& index, double t0, double t1, GroupBy groupBy)
      : m_index(index),
        m_trace(index.trace()),
        m_events(index.trace().events),
        m_t0(t0),
        m_t1(t1),
        m_groupBy(groupBy),
        m_slotOfKey(index.trace().strings.size(), kNone) {}

  void addRow(uint32_t row) {
    const std::pair<uint32_t, uint32_t> span = window(row);  // not a structured binding: lambdas below capture it
    const uint32_t first = span.first, last = span.second;
    m_self.assign(last - first, 0.0);
    // Self time inside the range: the sweep's stretches, clipped to it.
    SelfTimeSweep sweep(m_events);
    auto attribute = [&](uint32_t event, double from, double to) {
      const double part = std::min(to, m_t1) - std::max(from, m_t0);
      if (part > 0) m_self[event - first] += part;
    };
    for (uint32_t i = first; i < last; ++i) {
      if (m_events[i].ph != 'X') continue;
      sweep.advance(m_events[i].ts, attribute);
      sweep.push(i);
    }
    sweep.advance(std::numeric_limits<double>::infinity(), attribute);
    for (uint32_t i = first; i < last; ++i) {
      if (!takesPart(m_events[i])) continue;
      const auto [s, end] = clipped(m_events[i]);
      const double self = std::max(0.0, m_self[i - first]);
      GroupAccumulator& group = m_groups[slotOf(i)];
      group.add(std::max(0.0, end - s), self);
      group.cover(s, std::max(s, end));  // clipped starts ascend along a row
      m_total.add(std::max(0.0, end - s), self);
      m_total.cover(s, std::max(s, end));
    }
    for (GroupAccumulator& group : m_groups) group.endRow();
    m_total.endRow();
  }

  Aggregate finish() {
    Aggregate out;
    out.startUs = m_t0;
    out.endUs = m_t1;
    out.groupBy = m_groupBy;
    out.groups.reserve(m_groups.size());
    for (size_t g = 0; g < m_groups.size(); ++g)
      out.groups.push_back(m_groups[g].result(std::string(m_trace.string(m_keyOfSlot[g]))));
    out.total = m_total.result("total");
    std::sort(out.groups.begin(), out.groups.end(), [](const AggregateGroup& a, const AggregateGroup& b) {
      return a.wallUs != b.wallUs ? a.wallUs > b.wallUs : a.key < b.key;
    });
    return out;
  }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // The row's events that can touch [t0, t1]: a slice reaching t0 starts no
  // earlier than t0 minus the row's longest slice.
  std::pair<uint32_t, uint32_t> window(uint32_t row) const {
    const auto begin = m_events.begin();
    const double from = m_t0 - m_index.rowMaxDurationUs(row);
    auto first = std::partition_point(begin + m_index.rowBegin(row), begin + m_index.rowEnd(row),
                                      [&](const CompactEvent& e) { return e.ts < from; });
    auto last =
        std::partition_point(first, begin + m_index.rowEnd(row), [&](const CompactEvent& e) { return e.ts <= m_t1; });
    return {static_cast<uint32_t>(first - begin), static_cast<uint32_t>(last - begin)};
  }

  std::pair<double, double> clipped(const CompactEvent& e) const {
    return {std::max(e.ts, m_t0), std::min(e.ts + e.dur, m_t1)};
  }

  // A slice of the window takes part if it overlaps the range for a positive
  // time, or has zero duration inside it (the window ends at t1).
  bool takesPart(const CompactEvent& e) const {
    if (e.ph != 'X') return false;
    const auto [s, end] = clipped(e);
    return end > s || (e.dur == 0 && e.ts >= m_t0);
  }

  uint32_t keyOf(const CompactEvent& e) const {
    switch (m_groupBy) {
      case GroupBy::Section: return e.section;
      case GroupBy::Hypersection: return m_trace.hypersectionKey(e);
      case GroupBy::Name: break;
    }
    return e.name;
  }

  uint32_t slotOf(uint32_t event) {
    const uint32_t key = keyOf(m_events[event]);
    uint32_t& slot = m_slotOfKey[key];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(m_groups.size());
      m_groups.emplace_back();
      m_keyOfSlot.push_back(key);
    }
    return slot;
  }

  const TraceIndex& m_index;
  const CompactTrace& m_trace;
  const std::vector<CompactEvent>& m_events;
  double m_t0, m_t1;
  GroupBy m_groupBy;
  std::vector<uint32_t> m_slotOfKey;  // per string id
  std::vector<uint32_t> m_keyOfSlot;
  std::vector<GroupAccumulator> m_groups;
  GroupAccumulator m_total;
  std::vector<double> m_self;  // the current row's clipped self times, by event - window start
};

}  // namespace

Aggregate TraceIndex::aggregate(double t0, double t1, const std::vector<uint32_t>& rows, GroupBy groupBy) const {
  if (t1 < t0) std::swap(t0, t1);
  Aggregator aggregator(*this, t0, t1, groupBy);
  for (uint32_t r : countedRows(rows)) aggregator.addRow(r);
  return aggregator.finish();
}

}  // namespace dfc::profile
