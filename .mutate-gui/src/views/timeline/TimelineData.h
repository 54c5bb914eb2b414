#pragma once
// The timeline's preprocessed form of a trace (tracy's preprocess -> cull ->
// fold -> draw): one row per (pid, tid), each row's complete slices sorted by
// start in flat vectors with nesting depth and colour computed once, per-lane
// index lists for binary-searched culling, and per-row level-of-detail tables
// where runs of narrow slices are already merged into blocks, so a zoomed-out
// repaint walks a few thousand blocks instead of a million slices.
#include <QRgb>
#include <QString>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "profile/CompactTrace.h"
#include "profile/Trace.h"
#include "profile/TraceIndex.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

// A run of consecutive slices of one lane: laneSlices[lane][first .. first+count).
// count == 1 is the slice itself (drawn in its colour); more is a merged block.
struct TimelineLodItem {
  double start = 0;
  double end = 0;
  uint32_t first = 0;
  uint32_t count = 1;
};

struct TimelineLod {
  double widthUs = 0;  // slices and gaps narrower than this were merged
  std::vector<std::vector<TimelineLodItem>> lanes;
  size_t itemCount = 0;
};

struct TimelineRow {
  int64_t pid = 0;
  int64_t tid = 0;
  uint32_t thread = 0;          // the trace's (and its index's) row
  QString name;                 // thread name, or "process: thread" when several processes
  QString processName;
  int64_t sortIndex = 0;
  int depthCount = 1;           // lanes this row needs
  double maxDurationUs = 0;
  std::vector<double> starts;   // us, sorted ascending
  std::vector<double> durations;
  std::vector<uint16_t> depths;
  std::vector<uint32_t> events; // index into trace->events
  std::vector<QRgb> colors;
  std::vector<std::vector<uint32_t>> laneSlices;  // per depth: slice indices; starts and ends ascending
  std::vector<TimelineLod> lods;                  // finest first
  std::vector<double> instants;                   // 'i' events, us, sorted
  std::vector<uint32_t> instantEvents;
  size_t size() const { return starts.size(); }
  // The coarsest level whose merge width is at most `widthUs`, or null (draw raw slices).
  const TimelineLod* lodFor(double widthUs) const;
};

struct TimelineCounter {
  QString name;         // "loss", or "chip 0: loss" with several processes
  int64_t pid = 0;
  std::vector<double> ts;
  std::vector<double> values;
  double minValue = 0;
  double maxValue = 0;
};

// A colour key of the trace (a slice's hypersection, else its name) with
// what its slices add up to: the timeline's legend.
struct TimelineKey {
  QString key;
  uint32_t string = 0;  // into the trace's strings
  size_t count = 0;
  double totalUs = 0;
};

struct TimelineData {
  std::shared_ptr<const profile::CompactTrace> trace;
  std::shared_ptr<const profile::TraceIndex> index;  // nesting, search, range aggregation
  std::vector<TimelineRow> rows;  // display order
  std::vector<TimelineCounter> counters;
  double startUs = 0;             // earliest slice start
  double endUs = 0;               // latest slice end
  size_t sliceCount = 0;
  std::vector<TimelineKey> keys;  // most time first
  SharedColorIdentity identity;   // the colours the rows were painted with
  std::vector<std::string> warnings;  // from reading the trace (a cut-off file)
  bool empty() const { return sliceCount == 0 && counters.empty() && rows.empty(); }
};

// Groups slices into rows ordered by (pid, thread sort index, tid), with the
// nesting depths of the trace index. Overlaps that do not nest (others'
// files) are put one lane deeper rather than dropped.
TimelineData buildTimelineData(std::shared_ptr<const profile::TraceIndex> index);
TimelineData buildTimelineData(profile::CompactTrace trace);  // builds the index too
TimelineData buildTimelineData(const profile::Trace& trace);

// What a range selection covers on rows [firstRow, lastRow] (-1: to the last
// row), from TraceIndex::aggregate: slices taking part, the wall time in which
// some of those rows is busy (nested slices count once), the summed self time
// and the same per group (name, section or hypersection), longest wall first.
struct RangeSummary {
  double startUs = 0;
  double endUs = 0;
  int firstRow = 0;
  int lastRow = -1;
  size_t slices = 0;
  double wallUs = 0;
  double selfUs = 0;
  profile::GroupBy groupBy = profile::GroupBy::Name;
  std::vector<profile::AggregateGroup> groups;
};
RangeSummary summarizeRange(const TimelineData& data, double startUs, double endUs, int firstRow = 0,
                            int lastRow = -1, profile::GroupBy groupBy = profile::GroupBy::Name);

// Colours every slice by its key through `identity` (a PEF's: the same
// hypersection colours as the graph and schedule); null: an identity of the
// trace's own keys, most time first, so the busiest get the palette.
void applyColorIdentity(TimelineData& data, SharedColorIdentity identity);

}  // namespace dfc::views
