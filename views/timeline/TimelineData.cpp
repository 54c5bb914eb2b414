#include "timeline/TimelineData.h"

#include <QColor>
#include <algorithm>
#include <map>
#include <numeric>

namespace dfc::views {
namespace {

// The hypersection arg, when present, is what repeats share; else the name.
std::string_view colorKey(const profile::TraceEvent& event) {
  for (const auto& [key, value] : event.args) {
    if (key == "hypersection") {
      if (const auto* text = std::get_if<std::string>(&value)) return *text;
    }
  }
  return event.name;
}

}  // namespace

QRgb sliceColor(std::string_view key) {
  uint32_t hash = 2166136261u;  // FNV-1a: stable across runs, unlike std::hash
  for (char c : key) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  const int hue = static_cast<int>(hash % 360);
  const int saturation = 110 + static_cast<int>((hash >> 9) % 70);
  const int value = 200 + static_cast<int>((hash >> 17) % 45);
  return QColor::fromHsv(hue, saturation, value).rgb();
}

TimelineData buildTimelineData(profile::Trace trace) {
  TimelineData data;
  auto shared = std::make_shared<const profile::Trace>(std::move(trace));
  data.trace = shared;
  const auto& events = shared->events;

  std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byThread;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].ph == 'X') byThread[{events[i].pid, events[i].tid}].push_back(static_cast<uint32_t>(i));
  }

  // With one process the row label is the thread name alone (the process is
  // shown in the tooltip); with several, rows carry "process: thread".
  bool singleProcess = byThread.empty() || byThread.begin()->first.first == byThread.rbegin()->first.first;
  bool first = true;
  for (auto& [key, indices] : byThread) {
    TimelineRow row;
    row.pid = key.first;
    row.tid = key.second;
    const auto sortIt = shared->threadSortIndex.find(key);
    row.sortIndex = sortIt != shared->threadSortIndex.end() ? sortIt->second : key.second;
    const auto procIt = shared->processNames.find(key.first);
    const auto threadIt = shared->threadNames.find(key);
    const QString process = procIt != shared->processNames.end()
                                ? QString::fromStdString(procIt->second)
                                : QStringLiteral("pid %1").arg(key.first);
    const QString thread = threadIt != shared->threadNames.end()
                               ? QString::fromStdString(threadIt->second)
                               : QStringLiteral("tid %1").arg(key.second);
    row.name = singleProcess ? thread : process + QStringLiteral(": ") + thread;
    row.processName = process;

    // Parents before children: earlier start first, longer first on ties.
    std::sort(indices.begin(), indices.end(), [&](uint32_t a, uint32_t b) {
      if (events[a].ts != events[b].ts) return events[a].ts < events[b].ts;
      return events[a].dur > events[b].dur;
    });
    row.starts.reserve(indices.size());
    row.durations.reserve(indices.size());
    row.depths.reserve(indices.size());
    row.events = indices;
    row.colors.reserve(indices.size());
    std::vector<double> openEnds;  // end times of the enclosing slices
    for (uint32_t idx : indices) {
      const auto& ev = events[idx];
      const double dur = std::max(0.0, ev.dur);
      const double end = ev.ts + dur;
      while (!openEnds.empty() && openEnds.back() <= ev.ts) openEnds.pop_back();
      const auto depth = static_cast<uint16_t>(std::min<size_t>(openEnds.size(), 65535));
      openEnds.push_back(end);
      row.starts.push_back(ev.ts);
      row.durations.push_back(dur);
      row.depths.push_back(depth);
      row.colors.push_back(sliceColor(colorKey(ev)));
      row.depthCount = std::max(row.depthCount, depth + 1);
      row.maxDurationUs = std::max(row.maxDurationUs, dur);
      data.startUs = first ? ev.ts : std::min(data.startUs, ev.ts);
      data.endUs = first ? end : std::max(data.endUs, end);
      first = false;
    }
    data.sliceCount += row.size();
    data.rows.push_back(std::move(row));
  }
  std::stable_sort(data.rows.begin(), data.rows.end(), [](const TimelineRow& a, const TimelineRow& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.sortIndex != b.sortIndex) return a.sortIndex < b.sortIndex;
    return a.tid < b.tid;
  });
  return data;
}

}  // namespace dfc::views
