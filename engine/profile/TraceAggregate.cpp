// TraceIndex::aggregate: what a range of the trace holds, per name, section
// or hypersection. The definitions are in TraceIndex.h; this file walks each
// selected row once over the slices the range can touch.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "profile/RawArgs.h"
#include "profile/TraceIndex.h"
#include "profile/TraceIndexKeys.h"

namespace dfc::profile {
namespace {

// Count, clipped-duration statistics, self time and the union of clipped
// parts. Within a row parts arrive by start, so runs merge as they come;
// runs of different rows are merged once at the end.
struct GroupAccumulator {
  size_t count = 0;
  double sum = 0, self = 0;
  double min = std::numeric_limits<double>::max(), max = 0;
  std::vector<std::pair<double, double>> runs;
  double runStart = 0, runEnd = 0;
  bool runOpen = false;

  void add(double start, double end, double selfUs) {
    ++count;
    sum += end - start;
    self += selfUs;
    min = std::min(min, end - start);
    max = std::max(max, end - start);
    if (runOpen && start <= runEnd) {
      runEnd = std::max(runEnd, end);
      return;
    }
    endRow();
    runStart = start;
    runEnd = end;
    runOpen = true;
  }
  void endRow() {
    if (runOpen && runEnd > runStart) runs.emplace_back(runStart, runEnd);
    runOpen = false;
  }
  double wall() {
    endRow();
    std::sort(runs.begin(), runs.end());
    double total = 0, start = 0, end = 0;
    bool open = false;
    for (const auto& [s, e] : runs) {
      if (open && s <= end) {
        end = std::max(end, e);
        continue;
      }
      if (open) total += end - start;
      start = s;
      end = e;
      open = true;
    }
    return open ? total + (end - start) : total;
  }
  AggregateGroup result(std::string key) {
    return {std::move(key), count, wall(), self, sum, count ? min : 0.0, max};
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

const TraceIndex::ArgKeys& TraceIndex::argKeys() const {
  ArgKeys& k = *m_argKeys;
  std::call_once(k.once, [&] {
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

// One aggregation: rows are walked one at a time, groups made as keys appear.
class Aggregator {
 public:
  Aggregator(const TraceIndex& index, double t0, double t1, const std::vector<uint32_t>* keyOf, size_t keySpace)
      : m_index(index), m_events(index.trace().events), m_t0(t0), m_t1(t1), m_keyOf(keyOf), m_slotOfKey(keySpace, kNone) {}

  void addRow(uint32_t row) {
    const auto [first, last] = window(row);
    m_taking.clear();
    m_self.assign(last - first, 0.0);
    for (uint32_t i = first; i < last; ++i) {
      const CompactEvent& e = m_events[i];
      if (e.ph != 'X') continue;
      const auto [s, end] = clipped(e);
      if (!(end > s || (e.dur == 0 && e.ts >= m_t0))) continue;
      m_taking.push_back(i);
      m_self[i - first] += end - s;
      // The child's part inside its parent is not the parent's self time.
      const uint32_t p = m_index.parent(i);
      if (p == TraceIndex::kNoSlice) continue;
      const double inParent = std::min(end, m_events[p].ts + m_events[p].dur) - s;
      if (inParent > 0 && p >= first) m_self[p - first] -= inParent;
    }
    for (uint32_t i : m_taking) {
      const auto [s, end] = clipped(m_events[i]);
      const double self = std::max(0.0, m_self[i - first]);
      groupOf(m_keyOf ? (*m_keyOf)[i] : m_events[i].name).add(s, std::max(s, end), self);
      m_total.add(s, std::max(s, end), self);
    }
    for (GroupAccumulator& g : m_groups) g.endRow();
    m_total.endRow();
  }

  template <typename KeyText>
  Aggregate finish(GroupBy groupBy, KeyText keyText) {
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
    auto last = std::partition_point(first, begin + m_index.rowEnd(row), [&](const CompactEvent& e) { return e.ts <= m_t1; });
    return {static_cast<uint32_t>(first - begin), static_cast<uint32_t>(last - begin)};
  }

  std::pair<double, double> clipped(const CompactEvent& e) const {
    return {std::max(e.ts, m_t0), std::min(e.ts + e.dur, m_t1)};
  }

  GroupAccumulator& groupOf(uint32_t key) {
    uint32_t& slot = m_slotOfKey[key];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(m_groups.size());
      m_groups.emplace_back();
      m_keyOfSlot.push_back(key);
    }
    return m_groups[slot];
  }

  const TraceIndex& m_index;
  const std::vector<CompactEvent>& m_events;
  double m_t0, m_t1;
  const std::vector<uint32_t>* m_keyOf;  // per event; null: group by name
  std::vector<uint32_t> m_slotOfKey;
  std::vector<uint32_t> m_keyOfSlot;
  std::vector<GroupAccumulator> m_groups;
  GroupAccumulator m_total;
  std::vector<uint32_t> m_taking;  // slices of the current row that take part
  std::vector<double> m_self;      // their clipped self time, by event - window start
};

}  // namespace

Aggregate TraceIndex::aggregate(double t0, double t1, const std::vector<uint32_t>& rows, GroupBy groupBy) const {
  if (t1 < t0) std::swap(t0, t1);
  const ArgKeys* keys = groupBy == GroupBy::Name ? nullptr : &argKeys();
  const std::vector<uint32_t>* keyOf =
      keys ? (groupBy == GroupBy::Section ? &keys->section : &keys->hypersection) : nullptr;
  Aggregator aggregator(*this, t0, t1, keyOf, keys ? keys->keys.size() : m_trace->strings.size());
  if (rows.empty()) {
    for (uint32_t r = 0; r < rowCount(); ++r) aggregator.addRow(r);
  } else {
    for (uint32_t r : rows)
      if (r < rowCount()) aggregator.addRow(r);
  }
  return aggregator.finish(groupBy, [&](uint32_t key) {
    return keys ? keys->keys[key] : std::string(m_trace->string(key));
  });
}

}  // namespace dfc::profile
