#include "timeline/TimelineData.h"

#include <QColor>
#include <algorithm>
#include <limits>
#include <set>

namespace dfc::views {
namespace {

constexpr double kLodGrowth = 4.0;     // each level merges 4x wider runs
constexpr double kLodMinGain = 0.8;    // keep a level only if it has <= 80% of the finer items

// One level from the finer one: runs of narrow items with narrow gaps merge.
std::vector<TimelineLodItem> mergeLane(const std::vector<TimelineLodItem>& finer, double width) {
  std::vector<TimelineLodItem> out;
  out.reserve(finer.size() / 2 + 1);
  bool pending = false;
  TimelineLodItem block;
  for (const TimelineLodItem& item : finer) {
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

void buildLods(TimelineRow& row, double spanUs) {
  std::vector<std::vector<TimelineLodItem>> current(row.laneSlices.size());
  size_t count = 0;
  for (size_t lane = 0; lane < row.laneSlices.size(); ++lane) {
    current[lane].reserve(row.laneSlices[lane].size());
    for (uint32_t k = 0; k < row.laneSlices[lane].size(); ++k) {
      const uint32_t i = row.laneSlices[lane][k];
      current[lane].push_back({row.starts[i], row.starts[i] + row.durations[i], k, 1});
    }
    count += current[lane].size();
  }
  // ~16M px across the whole trace is the finest zoom where folding matters.
  double width = std::max(spanUs, 1.0) / double(1 << 24);
  size_t kept = count;
  while (count > 4 * current.size() && width < spanUs * 2) {
    std::vector<std::vector<TimelineLodItem>> next(current.size());
    size_t nextCount = 0;
    for (size_t lane = 0; lane < current.size(); ++lane) {
      next[lane] = mergeLane(current[lane], width);
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

QRgb sliceColor(std::string_view key) {
  uint32_t hash = 2166136261u;  // FNV-1a: stable across runs, unlike std::hash
  for (char c : key) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  const int hue = static_cast<int>(hash % 360);
  const int saturation = 110 + static_cast<int>((hash >> 9) % 70);
  const int value = 200 + static_cast<int>((hash >> 17) % 45);
  return QColor::fromHsv(hue, saturation, value).rgb();
}

TimelineData buildTimelineData(const profile::Trace& trace) {
  return buildTimelineData(profile::compactTrace(trace));
}

TimelineData buildTimelineData(profile::CompactTrace compact) {
  TimelineData data;
  auto shared = std::make_shared<const profile::CompactTrace>(std::move(compact));
  data.trace = shared;
  const profile::CompactTrace& trace = *shared;
  const auto& events = trace.events;

  std::vector<QRgb> colorOf(trace.strings.size(), 0);
  std::vector<bool> colorKnown(trace.strings.size(), false);
  auto colorFor = [&](uint32_t key) {
    if (!colorKnown[key]) {
      colorOf[key] = sliceColor(trace.string(key));
      colorKnown[key] = true;
    }
    return colorOf[key];
  };

  std::set<int64_t> pids;
  for (const auto& t : trace.threads) pids.insert(t.pid);
  for (const auto& c : trace.counters) pids.insert(c.pid);
  // With one process the row label is the thread name alone; with several, "process: thread".
  const bool singleProcess = pids.size() <= 1;
  auto processName = [&](int64_t pid) {
    const auto it = trace.processNames.find(pid);
    return it != trace.processNames.end() ? QString::fromStdString(it->second) : QStringLiteral("pid %1").arg(pid);
  };

  bool first = true;
  size_t begin = 0;
  while (begin < events.size()) {
    const uint32_t thread = events[begin].thread;
    size_t end = begin;
    while (end < events.size() && events[end].thread == thread) ++end;
    const auto key = std::make_pair(trace.threads[thread].pid, trace.threads[thread].tid);
    TimelineRow row;
    row.pid = key.first;
    row.tid = key.second;
    const auto sortIt = trace.threadSortIndex.find(key);
    row.sortIndex = sortIt != trace.threadSortIndex.end() ? sortIt->second : key.second;
    const auto threadIt = trace.threadNames.find(key);
    const QString process = processName(key.first);
    const QString threadName = threadIt != trace.threadNames.end() ? QString::fromStdString(threadIt->second)
                                                                  : QStringLiteral("tid %1").arg(key.second);
    row.name = singleProcess ? threadName : process + QStringLiteral(": ") + threadName;
    row.processName = process;

    const size_t n = end - begin;
    row.starts.reserve(n);
    row.durations.reserve(n);
    row.depths.reserve(n);
    row.events.reserve(n);
    row.colors.reserve(n);
    // Events arrive sorted by (ts, longer first): parents before children.
    std::vector<double> openEnds;  // end times of the enclosing slices
    for (size_t idx = begin; idx < end; ++idx) {
      const profile::CompactEvent& ev = events[idx];
      if (ev.ph == 'i') {
        row.instants.push_back(ev.ts);
        row.instantEvents.push_back(static_cast<uint32_t>(idx));
        continue;
      }
      const double dur = std::max(0.0, ev.dur);
      const double stop = ev.ts + dur;
      while (!openEnds.empty() && openEnds.back() <= ev.ts) openEnds.pop_back();
      const auto depth = static_cast<uint16_t>(std::min<size_t>(openEnds.size(), 65535));
      openEnds.push_back(stop);
      if (row.laneSlices.size() <= depth) row.laneSlices.resize(depth + 1u);
      row.laneSlices[depth].push_back(static_cast<uint32_t>(row.starts.size()));
      row.starts.push_back(ev.ts);
      row.durations.push_back(dur);
      row.depths.push_back(depth);
      row.events.push_back(static_cast<uint32_t>(idx));
      row.colors.push_back(colorFor(ev.colorKey));
      row.depthCount = std::max(row.depthCount, depth + 1);
      row.maxDurationUs = std::max(row.maxDurationUs, dur);
      data.startUs = first ? ev.ts : std::min(data.startUs, ev.ts);
      data.endUs = first ? stop : std::max(data.endUs, stop);
      first = false;
    }
    for (double t : row.instants) {
      data.startUs = first ? t : std::min(data.startUs, t);
      data.endUs = first ? t : std::max(data.endUs, t);
      first = false;
    }
    if (row.laneSlices.empty()) row.laneSlices.resize(1);
    data.sliceCount += row.size();
    data.rows.push_back(std::move(row));
    begin = end;
  }
  for (const profile::CounterSeries& series : trace.counters) {
    if (series.ts.empty()) continue;
    TimelineCounter counter;
    counter.pid = series.pid;
    const QString name = QString::fromStdString(series.name);
    counter.name = singleProcess ? name : processName(series.pid) + QStringLiteral(": ") + name;
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
      data.startUs = first ? series.ts[i] : std::min(data.startUs, series.ts[i]);
      data.endUs = first ? series.ts[i] : std::max(data.endUs, series.ts[i]);
      first = false;
    }
    data.counters.push_back(std::move(counter));
  }
  std::stable_sort(data.rows.begin(), data.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.sortIndex != b.sortIndex) return a.sortIndex < b.sortIndex;
    return a.tid < b.tid;
  });
  const double span = data.endUs - data.startUs;
  for (TimelineRow& row : data.rows) buildLods(row, span);
  return data;
}

RangeSummary summarizeRange(const TimelineData& data, double startUs, double endUs, int firstRow, int lastRow) {
  RangeSummary summary;
  summary.startUs = std::min(startUs, endUs);
  summary.endUs = std::max(startUs, endUs);
  const int rows = static_cast<int>(data.rows.size());
  if (lastRow < 0 || lastRow >= rows) lastRow = rows - 1;
  for (int r = std::max(0, firstRow); r <= lastRow; ++r) {
    const TimelineRow& row = data.rows[static_cast<size_t>(r)];
    for (const auto& lane : row.laneSlices) {
      // Within a lane slices do not overlap, so ends ascend with starts.
      auto it = std::lower_bound(lane.begin(), lane.end(), summary.startUs, [&](uint32_t i, double t) {
        return row.starts[i] + row.durations[i] <= t;
      });
      for (; it != lane.end() && row.starts[*it] < summary.endUs; ++it) {
        const double s = std::max(row.starts[*it], summary.startUs);
        const double e = std::min(row.starts[*it] + row.durations[*it], summary.endUs);
        ++summary.slices;
        summary.totalUs += std::max(0.0, e - s);
      }
    }
  }
  return summary;
}

}  // namespace dfc::views
