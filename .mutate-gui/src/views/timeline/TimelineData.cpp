#include "timeline/TimelineData.h"

#include <QCoreApplication>

#include <QColor>
#include <algorithm>

#include "profile/ParallelRows.h"
#include <limits>
#include <set>

namespace dfc::views {
namespace {

constexpr double kLodGrowth = 4.0;     // each level merges 4x wider runs
constexpr double kLodMinGain = 0.8;    // keep a level only if it has <= 80% of the finer items

// One level from the finer one (`itemAt(k)`, k < n): runs of narrow items
// with narrow gaps merge.
template <typename ItemAt>
std::vector<TimelineLodItem> mergeItems(size_t n, ItemAt itemAt, double width) {
  std::vector<TimelineLodItem> out;
  out.reserve(n / 2 + 1);
  bool pending = false;
  TimelineLodItem block;
  for (size_t k = 0; k < n; ++k) {
    const TimelineLodItem item = itemAt(k);
    const bool narrow = item.end - item.start < width;
    if (pending && narrow && item.start - block.end < width) {
      block.end = std::max(block.end, item.end);
      block.count += item.count;
      continue;
    }
    if (pending) out.push_back(block);
    pending = narrow;
    if (narrow) {
      block = item;
    } else {
      out.push_back(item);
    }
  }
  if (pending) out.push_back(block);
  return out;
}

// The first level straight from a lane's slices, which are never copied
// into items of their own (24 bytes a slice of fresh memory, for a level
// that is thrown away).
std::vector<TimelineLodItem> mergeSlices(const TimelineRow& row, size_t lane, double width) {
  const std::vector<uint32_t>& slices = row.laneSlices[lane];
  return mergeItems(slices.size(), [&](size_t k) {
    const uint32_t i = slices[k];
    return TimelineLodItem{row.starts[i], row.starts[i] + row.durations[i], static_cast<uint32_t>(k), 1};
  }, width);
}

void buildLods(TimelineRow& row, double spanUs) {
  const size_t lanes = row.laneSlices.size();
  size_t count = 0;
  for (const auto& slices : row.laneSlices) count += slices.size();
  std::vector<std::vector<TimelineLodItem>> current;  // empty: the slices themselves
  // ~16M px across the whole trace is the finest zoom where folding matters.
  double width = std::max(spanUs, 1.0) / double(1 << 24);
  size_t kept = count;
  while (count > 4 * lanes && width < spanUs * 2) {
    std::vector<std::vector<TimelineLodItem>> next(lanes);
    size_t nextCount = 0;
    for (size_t lane = 0; lane < lanes; ++lane) {
      next[lane] = current.empty() ? mergeSlices(row, lane, width)
                                   : mergeItems(current[lane].size(), [&](size_t k) { return current[lane][k]; }, width);
      nextCount += next[lane].size();
    }
    if (static_cast<double>(nextCount) <= kLodMinGain * static_cast<double>(kept)) {
      row.lods.push_back({width, next, nextCount});
      kept = nextCount;
    }
    current = std::move(next);
    count = nextCount;
    width *= kLodGrowth;
  }
}

}  // namespace

const TimelineLod* TimelineRow::lodFor(double widthUs) const {
  const TimelineLod* best = nullptr;
  for (const TimelineLod& lod : lods) {
    if (lod.widthUs > widthUs) break;
    best = &lod;
  }
  return best;
}

TimelineData buildTimelineData(const profile::Trace& trace) {
  return buildTimelineData(profile::compactTrace(trace));
}

TimelineData buildTimelineData(profile::CompactTrace compact) {
  auto trace = std::make_shared<const profile::CompactTrace>(std::move(compact));
  return buildTimelineData(std::make_shared<const profile::TraceIndex>(std::move(trace)));
}

namespace {

class TimelineBuilder {
 public:
  explicit TimelineBuilder(std::shared_ptr<const profile::TraceIndex> index)
      : m_index(*index),
        m_trace(index->trace()),
        m_keyCount(m_trace.strings.size(), 0),
        m_keyTotal(m_trace.strings.size(), 0.0) {
    m_data.trace = index->sharedTrace();
    m_data.index = std::move(index);
    std::set<int64_t> pids;
    for (const auto& t : m_trace.threads) pids.insert(t.pid);
    for (const auto& c : m_trace.counters) pids.insert(c.pid);
    m_singleProcess = pids.size() <= 1;
  }

  // Rows are independent: each core builds rows (its own key totals), then
  // the levels of detail, once the trace's span is known.
  TimelineData build() {
    std::vector<uint32_t> threads;
    for (uint32_t thread = 0; thread < m_index.rowCount(); ++thread)
      if (m_index.rowEnd(thread) > m_index.rowBegin(thread)) threads.push_back(thread);
    std::sort(threads.begin(), threads.end(), [&](uint32_t a, uint32_t b) {
      return m_index.rowEnd(a) - m_index.rowBegin(a) > m_index.rowEnd(b) - m_index.rowBegin(b);
    });
    m_data.rows.resize(threads.size());
    std::vector<KeyTotals> totals(profile::parallelThreads(threads.size()));
    profile::parallelItems(threads.size(), [&](size_t worker, size_t k) {
      m_data.rows[k] = makeRow(threads[k], totals[worker]);
    });
    for (const KeyTotals& t : totals) addTotals(t);
    for (const TimelineRow& row : m_data.rows) noteRowTimes(row);
    for (const profile::CounterSeries& series : m_trace.counters)
      if (!series.ts.empty()) addCounter(series);
    std::stable_sort(m_data.rows.begin(), m_data.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
      if (a.pid != b.pid) return a.pid < b.pid;
      if (a.sortIndex != b.sortIndex) return a.sortIndex < b.sortIndex;
      return a.tid < b.tid;
    });
    const double span = m_data.endUs - m_data.startUs;
    profile::parallelItems(m_data.rows.size(), [&](size_t, size_t k) { buildLods(m_data.rows[k], span); });
    collectKeys();
    applyColorIdentity(m_data, nullptr);
    m_data.warnings = m_trace.warnings;
    return std::move(m_data);
  }

 private:
  // With one process the row label is the thread name alone; with several, "process: thread".
  QString processName(int64_t pid) const {
    const auto it = m_trace.processNames.find(pid);
    return it != m_trace.processNames.end() ? QString::fromStdString(it->second) : QStringLiteral("pid %1").arg(pid);
  }

  void collectKeys() {
    for (uint32_t id = 0; id < m_keyCount.size(); ++id) {
      if (m_keyCount[id] == 0) continue;
      const std::string_view key = m_trace.string(id);
      m_data.keys.push_back({QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size())), id, m_keyCount[id],
                             m_keyTotal[id]});
    }
    std::stable_sort(m_data.keys.begin(), m_data.keys.end(),
                     [](const TimelineKey& a, const TimelineKey& b) { return a.totalUs > b.totalUs; });
  }

  void noteTime(double start, double end) {
    m_data.startUs = m_first ? start : std::min(m_data.startUs, start);
    m_data.endUs = m_first ? end : std::max(m_data.endUs, end);
    m_first = false;
  }

  void nameRow(TimelineRow& row) const {
    const auto key = std::make_pair(row.pid, row.tid);
    const auto sortIt = m_trace.threadSortIndex.find(key);
    row.sortIndex = sortIt != m_trace.threadSortIndex.end() ? sortIt->second : row.tid;
    const auto threadIt = m_trace.threadNames.find(key);
    row.processName = processName(row.pid);
    const bool named = threadIt != m_trace.threadNames.end();
    const QString threadName = named ? QString::fromStdString(threadIt->second) : QStringLiteral("tid %1").arg(row.tid);
    // One process: the thread name says enough, unless it has none ("tid 1"):
    // then the process name (PyTorch's "python3") leads, so it is not lost.
    const bool knownProcess = m_trace.processNames.count(row.pid) > 0;
    row.name = m_singleProcess && (named || !knownProcess) ? threadName : row.processName + QStringLiteral(": ") + threadName;
  }

  struct KeyTotals {  // per colour key (a string id), one per worker
    std::vector<size_t> count;
    std::vector<double> totalUs;
  };

  void addTotals(const KeyTotals& t) {
    for (size_t id = 0; id < t.count.size(); ++id) {
      m_keyCount[id] += t.count[id];
      m_keyTotal[id] += t.totalUs[id];
    }
  }

  void noteRowTimes(const TimelineRow& row) {
    for (size_t i = 0; i < row.size(); ++i) noteTime(row.starts[i], row.starts[i] + row.durations[i]);
    for (double t : row.instants) noteTime(t, t);
    m_data.sliceCount += row.size();
  }

  // Events arrive sorted by (ts, longer first): parents before children, and
  // the index has given each slice its depth. A mirror row's slices are
  // drawn but not counted in the legend: their calls count on the row they copy.
  TimelineRow makeRow(uint32_t thread, KeyTotals& keys) const {
    TimelineRow row;
    row.pid = m_trace.threads[thread].pid;
    row.tid = m_trace.threads[thread].tid;
    row.thread = thread;
    nameRow(row);
    const bool counted = !m_index.isMirrorRow(thread);
    if (keys.count.empty()) {
      keys.count.assign(m_trace.strings.size(), 0);
      keys.totalUs.assign(m_trace.strings.size(), 0.0);
    }
    const uint32_t begin = m_index.rowBegin(thread), end = m_index.rowEnd(thread);
    row.starts.reserve(end - begin);
    row.durations.reserve(end - begin);
    row.depths.reserve(end - begin);
    row.events.reserve(end - begin);
    row.colors.reserve(end - begin);
    for (uint32_t idx = begin; idx < end; ++idx) {
      const profile::CompactEvent& ev = m_trace.events[idx];
      if (ev.ph == 'i') {
        row.instants.push_back(ev.ts);
        row.instantEvents.push_back(idx);
        continue;
      }
      const uint16_t depth = m_index.depth(idx);
      if (row.laneSlices.size() <= depth) row.laneSlices.resize(depth + 1u);
      row.laneSlices[depth].push_back(static_cast<uint32_t>(row.starts.size()));
      row.starts.push_back(ev.ts);
      row.durations.push_back(ev.dur);
      row.depths.push_back(depth);
      row.events.push_back(idx);
      row.colors.push_back(0);  // applyColorIdentity paints them
      if (counted) {
        ++keys.count[ev.colorKey];
        keys.totalUs[ev.colorKey] += ev.dur;
      }
      row.depthCount = std::max(row.depthCount, depth + 1);
      row.maxDurationUs = std::max(row.maxDurationUs, ev.dur);
    }
    if (row.laneSlices.empty()) row.laneSlices.resize(1);
    return row;
  }

  void addCounter(const profile::CounterSeries& series) {
    TimelineCounter counter;
    counter.pid = series.pid;
    const QString name = QString::fromStdString(series.name);
    counter.name = m_singleProcess ? name : processName(series.pid) + QStringLiteral(": ") + name;
    // Samples sorted by time; files from other tools may not be.
    std::vector<size_t> order(series.ts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return series.ts[a] < series.ts[b]; });
    counter.minValue = std::numeric_limits<double>::max();
    counter.maxValue = std::numeric_limits<double>::lowest();
    for (size_t i : order) {
      counter.ts.push_back(series.ts[i]);
      counter.values.push_back(series.values[i]);
      counter.minValue = std::min(counter.minValue, series.values[i]);
      counter.maxValue = std::max(counter.maxValue, series.values[i]);
      noteTime(series.ts[i], series.ts[i]);
    }
    m_data.counters.push_back(std::move(counter));
  }

  const profile::TraceIndex& m_index;
  const profile::CompactTrace& m_trace;
  TimelineData m_data;
  std::vector<size_t> m_keyCount;  // per string id used as a colour key
  std::vector<double> m_keyTotal;
  bool m_singleProcess = true;
  bool m_first = true;
};

}  // namespace

TimelineData buildTimelineData(std::shared_ptr<const profile::TraceIndex> index) {
  return TimelineBuilder(std::move(index)).build();
}

void applyColorIdentity(TimelineData& data, SharedColorIdentity identity) {
  // The given colours first (a PEF's hypersections), then the trace's other
  // keys (host phases, others' names) after them, busiest first.
  std::shared_ptr<ColorIdentity> combined;
  if (identity) {
    combined = std::make_shared<ColorIdentity>(*identity);
  } else {  // a trace alone: by cost, its own time per key
    std::vector<std::pair<QString, double>> order;
    for (const TimelineKey& key : data.keys) order.emplace_back(key.key, key.totalUs);
    combined = std::make_shared<ColorIdentity>(ColorIdentity::byCost(
        {}, nullptr, order, QCoreApplication::translate("TimelineData", "time in this trace"),
        QCoreApplication::translate("TimelineData", "slice names")));
  }
  for (const TimelineKey& key : data.keys) combined->addHypersection(key.key);
  identity = std::move(combined);
  data.identity = identity;
  if (!data.trace) return;
  std::vector<QRgb> colorOf(data.trace->strings.size(), 0);
  for (const TimelineKey& key : data.keys) colorOf[key.string] = identity->hypersection(key.key).rgb();
  for (TimelineRow& row : data.rows)
    for (size_t i = 0; i < row.size(); ++i) row.colors[i] = colorOf[data.trace->events[row.events[i]].colorKey];
}

RangeSummary summarizeRange(const TimelineData& data, double startUs, double endUs, int firstRow, int lastRow,
                            profile::GroupBy groupBy) {
  RangeSummary summary;
  summary.startUs = std::min(startUs, endUs);
  summary.endUs = std::max(startUs, endUs);
  summary.firstRow = firstRow;
  summary.lastRow = lastRow;
  summary.groupBy = groupBy;
  if (!data.index) return summary;
  const int rows = static_cast<int>(data.rows.size());
  if (lastRow < 0 || lastRow >= rows) lastRow = rows - 1;
  std::vector<uint32_t> threads;
  for (int r = std::max(0, firstRow); r <= lastRow; ++r) threads.push_back(data.rows[static_cast<size_t>(r)].thread);
  if (threads.empty()) return summary;  // no rows: nothing, not "every row"
  profile::Aggregate aggregate = data.index->aggregate(summary.startUs, summary.endUs, threads, groupBy);
  summary.slices = aggregate.total.count;
  summary.wallUs = aggregate.total.wallUs;
  summary.selfUs = aggregate.total.selfUs;
  summary.groups = std::move(aggregate.groups);
  return summary;
}

}  // namespace dfc::views
