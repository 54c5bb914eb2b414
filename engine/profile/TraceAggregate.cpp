// TraceIndex::aggregate: what a range of the trace holds, per name, section
// or hypersection. The definitions are in TraceIndex.h; this file walks each
// selected row once over the slices the range can touch.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <queue>
#include <unordered_map>

#include "profile/RawArgs.h"
#include "profile/TraceIndex.h"
#include "profile/TraceIndexLazy.h"

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
    if (runOpen) wall += runEnd - runStart;
    runStart = start;
    runEnd = end;
    runOpen = true;
  }
  AggregateGroup result(std::string key) const {
    return {std::move(key), count, wall + (runOpen ? runEnd - runStart : 0.0), self, sum, count ? min : 0.0, max};
  }
};

std::string sectionKey(const RawArg* id, const RawArg* name) {
  std::string key;
  if (id) {
    const auto number = id->number();
    char buf[32];
    if (number && *number == static_cast<double>(static_cast<long long>(*number))) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(*number));
      key = buf;
    } else {
      key = id->unescaped();
    }
  }
  if (name && name->isString) key += (key.empty() ? "" : " ") + name->unescaped();
  return key;
}

}  // namespace

const TraceIndex::Lazy& TraceIndex::argKeys() const {
  Lazy& k = *m_lazy;
  std::call_once(k.argsOnce, [&] {
    const auto& events = m_trace->events;
    std::unordered_map<std::string, uint32_t> ids{{std::string(), 0}};
    auto intern = [&](std::string key) {
      auto [it, inserted] = ids.try_emplace(std::move(key), static_cast<uint32_t>(k.keys.size()));
      if (inserted) k.keys.push_back(it->first);
      return it->second;
    };
    k.section.assign(events.size(), 0);
    k.hypersection.assign(events.size(), 0);
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].ph != 'X' || events[i].argsSize == 0) continue;
      const std::string_view json = m_trace->argsJson(events[i]);
      const auto id = findRawArg(json, "section_id");
      const auto name = findRawArg(json, "section");
      k.section[i] = intern(sectionKey(id ? &*id : nullptr, name ? &*name : nullptr));
      if (const auto hs = findRawArg(json, "hypersection")) k.hypersection[i] = intern(hs->unescaped());
    }
  });
  return k;
}

namespace {

// One aggregation. Each row is walked once for counts and self times; then
// the rows' slices are merged in start order (a heap over the rows) so each
// group's union of clipped parts is one streaming pass.
class Aggregator {
 public:
  Aggregator(const TraceIndex& index, double t0, double t1, const std::vector<uint32_t>* keyOf, size_t keySpace)
      : m_index(index),
        m_events(index.trace().events),
        m_t0(t0),
        m_t1(t1),
        m_keyOf(keyOf),
        m_slotOfKey(keySpace, kNone) {}

  void addRow(uint32_t row) {
    const auto [first, last] = window(row);
    m_self.assign(last - first, 0.0);
    for (uint32_t i = first; i < last; ++i) {
      if (!takesPart(m_events[i])) continue;
      const auto [s, end] = clipped(m_events[i]);
      m_self[i - first] += end - s;
      // The child's part inside its parent is not the parent's self time.
      const uint32_t p = m_index.parent(i);
      if (p == TraceIndex::kNoSlice) continue;
      const double inParent = std::min(end, m_events[p].ts + m_events[p].dur) - s;
      if (inParent > 0 && p >= first) m_self[p - first] -= inParent;
    }
    for (uint32_t i = first; i < last; ++i) {
      if (!takesPart(m_events[i])) continue;
      const auto [s, end] = clipped(m_events[i]);
      const double self = std::max(0.0, m_self[i - first]);
      m_groups[slotOf(i)].add(std::max(0.0, end - s), self);
      m_total.add(std::max(0.0, end - s), self);
    }
    m_windows.emplace_back(first, last);
  }

  template <typename KeyText>
  Aggregate finish(GroupBy groupBy, KeyText keyText) {
    coverInStartOrder();
    Aggregate out;
    out.startUs = m_t0;
    out.endUs = m_t1;
    out.groupBy = groupBy;
    out.groups.reserve(m_groups.size());
    for (size_t g = 0; g < m_groups.size(); ++g) out.groups.push_back(m_groups[g].result(keyText(m_keyOfSlot[g])));
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

  uint32_t slotOf(uint32_t event) {
    const uint32_t key = m_keyOf ? (*m_keyOf)[event] : m_events[event].name;
    uint32_t& slot = m_slotOfKey[key];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(m_groups.size());
      m_groups.emplace_back();
      m_keyOfSlot.push_back(key);
    }
    return slot;
  }

  // Within a row the clipped starts ascend; a min-heap over the rows' next
  // slices yields every slice in start order.
  void coverInStartOrder() {
    using Next = std::pair<double, size_t>;  // clipped start, window
    std::priority_queue<Next, std::vector<Next>, std::greater<>> heap;
    std::vector<uint32_t> at(m_windows.size());
    auto advance = [&](size_t w) {
      while (at[w] < m_windows[w].second && !takesPart(m_events[at[w]])) ++at[w];
      if (at[w] < m_windows[w].second) heap.emplace(clipped(m_events[at[w]]).first, w);
    };
    for (size_t w = 0; w < m_windows.size(); ++w) {
      at[w] = m_windows[w].first;
      advance(w);
    }
    while (!heap.empty()) {
      const size_t w = heap.top().second;
      heap.pop();
      const uint32_t i = at[w]++;
      const auto [s, end] = clipped(m_events[i]);
      m_groups[m_slotOfKey[m_keyOf ? (*m_keyOf)[i] : m_events[i].name]].cover(s, std::max(s, end));
      m_total.cover(s, std::max(s, end));
      advance(w);
    }
  }

  const TraceIndex& m_index;
  const std::vector<CompactEvent>& m_events;
  double m_t0, m_t1;
  const std::vector<uint32_t>* m_keyOf;  // per event; null: group by name
  std::vector<uint32_t> m_slotOfKey;
  std::vector<uint32_t> m_keyOfSlot;
  std::vector<GroupAccumulator> m_groups;
  GroupAccumulator m_total;
  std::vector<std::pair<uint32_t, uint32_t>> m_windows;  // each row's events that may take part
  std::vector<double> m_self;  // the current row's clipped self times, by event - window start
};

}  // namespace

Aggregate TraceIndex::aggregate(double t0, double t1, const std::vector<uint32_t>& rows, GroupBy groupBy) const {
  if (t1 < t0) std::swap(t0, t1);
  const Lazy* keys = groupBy == GroupBy::Name ? nullptr : &argKeys();
  const std::vector<uint32_t>* keyOf =
      keys ? (groupBy == GroupBy::Section ? &keys->section : &keys->hypersection) : nullptr;
  Aggregator aggregator(*this, t0, t1, keyOf, keys ? keys->keys.size() : m_trace->strings.size());
  if (rows.empty()) {
    for (uint32_t r = 0; r < rowCount(); ++r) aggregator.addRow(r);
  } else {
    for (uint32_t r : rows)
      if (r < rowCount()) aggregator.addRow(r);
  }
  return aggregator.finish(groupBy,
                           [&](uint32_t key) { return keys ? keys->keys[key] : std::string(m_trace->string(key)); });
}

}  // namespace dfc::profile
