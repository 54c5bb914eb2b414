#pragma once
// The timeline's preprocessed form of a trace: one row per (pid, tid), each
// row's complete slices sorted by start in flat vectors, with nesting depth
// and a colour computed once, so painting only binary-searches and draws.
#include <QRgb>
#include <QString>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "profile/Trace.h"

namespace dfc::views {

struct TimelineRow {
  int64_t pid = 0;
  int64_t tid = 0;
  QString name;                 // thread name, or "process: thread" when several processes
  QString processName;
  int64_t sortIndex = 0;
  int depthCount = 1;           // lanes this row needs
  double maxDurationUs = 0;     // bounds the backward reach of the culling search
  std::vector<double> starts;   // us, sorted ascending
  std::vector<double> durations;
  std::vector<uint16_t> depths;
  std::vector<uint32_t> events; // index into trace->events
  std::vector<QRgb> colors;
  size_t size() const { return starts.size(); }
};

struct TimelineData {
  std::shared_ptr<const profile::Trace> trace;
  std::vector<TimelineRow> rows;  // display order
  double startUs = 0;             // earliest slice start
  double endUs = 0;               // latest slice end
  size_t sliceCount = 0;
  bool empty() const { return sliceCount == 0; }
};

// Groups X slices into rows ordered by (pid, thread sort index, tid) and
// assigns depths by nesting. Overlaps that do not nest (others' files) are
// put one lane deeper rather than dropped.
TimelineData buildTimelineData(profile::Trace trace);

// Colour by a hash of the key: slices that share a hypersection (the key the
// caller passes) share a colour.
QRgb sliceColor(std::string_view key);

}  // namespace dfc::views
