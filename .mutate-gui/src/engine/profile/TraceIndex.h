#pragma once
// Trace analysis below the views (tracy keeps a zone index and running
// statistics per source location; this is that idea for chrome traces).
// Built once from a CompactTrace, it knows every slice's nesting (parent,
// depth, self time), keeps statistics per name and answers search and
// range aggregation, for dfstudio's timeline and `dfc trace` alike.
//
// What the numbers mean (Perfetto's "wall" and "self" durations are the
// model; wall is a union per row here, so nesting never counts twice):
//  - A slice is a complete event (X, or a B/E pair); instants and counters
//    are not slices.
//  - Nesting is per row (one pid, tid): slices in start order, longer first
//    on equal starts; a slice's parent is the innermost earlier slice of its
//    row still open at its start (end > start), its depth the parent's + 1.
//    This is the timeline's lane assignment: what is counted is what is drawn.
//  - Self time of a slice: its duration minus the parts of its direct
//    children that lie inside it. Siblings never overlap (a slice starting
//    inside an open sibling becomes its child), so self >= 0.
//  - Mirror rows: SambaTune's layout shows each section call twice, on the
//    whole-model row and on its hyperfunction row. The copies are marked
//    (category "<role>,mirror"; the trace's `mirrors` metadata names the row
//    they copy, tid 0 by default). A row all of whose slices are marked and
//    each found on that row of its process (same start, duration and name)
//    is a mirror row; a call is counted on its original's row, and on the
//    mirror row only when the original's row is not among those asked about.
//    Every other row (others' traces, a marked slice without its original)
//    counts as itself.
//  - aggregate([t0, t1], rows, groupBy): over the counted rows among `rows`,
//    a slice takes part when it overlaps the range for a positive time, or
//    has zero duration and t0 <= ts <= t1. Its clipped part is
//    [max(ts, t0), min(ts + dur, t1)]. Per group:
//      count      slices taking part (a mirrored call once);
//      wall       summed over rows: the length of the union of the group's
//                 clipped parts on the row. A slice nested in another of its
//                 group counts once; two rows busy at once add (thread time,
//                 as Perfetto sums durations across threads);
//      self       sum over its slices of (clipped part minus its children's
//                 clipped parts inside it), so self <= wall for every group,
//                 and the self times of all groups add up to the total wall;
//      mean, min, max  of the clipped durations of its slices.
//    `total` is the same over every slice taking part: its wall is the sum
//    of the rows' busy time in the range.
//  - Groups: by name; by section (the `section_id` arg, with the `section`
//    name from the slice or the trace's `sections` table, DESIGN §8); by
//    hypersection (the `hypersection` arg). Slices without the arg form the
//    group with key "".
//  - Whole-trace statistics per name and search counts follow the same rule:
//    a mirrored call counts once.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/CompactTrace.h"

namespace dfc::profile {

enum class GroupBy { Name, Section, Hypersection };
std::string_view groupByName(GroupBy groupBy);  // "name", "section", "hypersection"
std::optional<GroupBy> groupByFromName(std::string_view name);

// Whole-trace statistics of one slice name (durations in microseconds).
struct NameStats {
  uint32_t name = 0;  // into CompactTrace::strings
  size_t count = 0;
  double totalUs = 0;
  double selfUs = 0;
  double minUs = 0;
  double maxUs = 0;
  double meanUs() const { return count ? totalUs / static_cast<double>(count) : 0.0; }
};

struct AggregateGroup {
  std::string key;  // the name, section or hypersection; "" = slices without one
  size_t count = 0;
  double wallUs = 0;
  double selfUs = 0;
  double sumUs = 0;  // of the clipped durations (mean = sum / count)
  double minUs = 0;
  double maxUs = 0;
  double meanUs() const { return count ? sumUs / static_cast<double>(count) : 0.0; }
};

struct Aggregate {
  double startUs = 0;
  double endUs = 0;
  GroupBy groupBy = GroupBy::Name;
  std::vector<AggregateGroup> groups;  // by wall, longest first; then by key
  AggregateGroup total;
};

struct TraceSearch {
  std::string text;
  std::vector<NameStats> names;  // matching names, most slices first
  size_t count = 0;              // slices of all matching names
};

// A place in time order, where slices sort by (start, event index). event -1
// stands before every slice that starts at `us`.
struct TimeCursor {
  double us = 0;
  int64_t event = -1;
};

class TraceIndex {
 public:
  static constexpr uint32_t kNoSlice = std::numeric_limits<uint32_t>::max();

  explicit TraceIndex(std::shared_ptr<const CompactTrace> trace);
  ~TraceIndex();
  TraceIndex(TraceIndex&&) noexcept;
  TraceIndex& operator=(TraceIndex&&) noexcept;

  const CompactTrace& trace() const { return *m_trace; }
  const std::shared_ptr<const CompactTrace>& sharedTrace() const { return m_trace; }
  size_t sliceCount() const { return m_sliceCount; }
  // Earliest and latest time of any slice, instant or counter sample.
  double startUs() const { return m_startUs; }
  double endUs() const { return m_endUs; }

  // Rows are CompactTrace::threads; a row's events are [rowBegin, rowEnd).
  size_t rowCount() const { return m_rowBegin.size() - 1; }
  uint32_t rowBegin(uint32_t row) const { return m_rowBegin[row]; }
  uint32_t rowEnd(uint32_t row) const { return m_rowBegin[row + 1]; }
  double rowMaxDurationUs(uint32_t row) const { return m_rowMaxDur[row]; }

  // Per event index (only meaningful for slices).
  uint16_t depth(uint32_t event) const { return m_depth[event]; }
  uint32_t parent(uint32_t event) const { return m_parent[event]; }
  double selfUs(uint32_t event) const { return m_self[event]; }
  // Direct children of a slice, in start order (a walk of its row: O(children + their subtrees)).
  std::vector<uint32_t> children(uint32_t event) const;
  // The row a mirror row copies (kNoRow: the row counts as itself).
  static constexpr uint32_t kNoRow = std::numeric_limits<uint32_t>::max();
  uint32_t mirrorOf(uint32_t row) const { return m_mirrorOf[row]; }
  // Rows that count when `rows` are asked about (empty: every row).
  std::vector<uint32_t> countedRows(const std::vector<uint32_t>& rows) const;
  bool isMirrorRow(uint32_t row) const { return m_mirrorOf[row] != kNoRow; }

  const std::vector<NameStats>& nameStats() const { return m_stats; }
  const NameStats* statsFor(std::string_view name) const;

  TraceSearch search(std::string_view text) const;
  // The first match after / the last match before `from`, in time order.
  std::optional<uint32_t> nextMatch(const TraceSearch& search, TimeCursor from) const;
  // Matches (counted slices of the search's names) that overlap [t0, t1].
  size_t countMatches(const TraceSearch& search, double t0, double t1) const;
  std::optional<uint32_t> prevMatch(const TraceSearch& search, TimeCursor from) const;
  TimeCursor cursorAt(uint32_t event) const { return {m_trace->events[event].ts, static_cast<int64_t>(event)}; }

  // rows: CompactTrace::threads indices; empty = every row.
  Aggregate aggregate(double startUs, double endUs, const std::vector<uint32_t>& rows = {},
                      GroupBy groupBy = GroupBy::Name) const;

 private:
  struct Lazy;  // TraceIndexLazy.h
  void nestRows();
  void findMirrorRows();
  bool copiesRow(uint32_t mirror, uint32_t original) const;
  void collectNameStats();
  void noteSpan(double startUs, double endUs);
  std::pair<const uint32_t*, const uint32_t*> slicesNamed(uint32_t statsSlot) const;  // sorted on first use

  std::shared_ptr<const CompactTrace> m_trace;
  size_t m_sliceCount = 0;
  double m_startUs = 0;
  double m_endUs = 0;
  bool m_spanKnown = false;
  std::vector<uint32_t> m_rowBegin;  // rowCount() + 1 offsets into the events
  std::vector<double> m_rowMaxDur;   // per row: the longest slice (bounds the range search)
  std::vector<uint16_t> m_depth;
  std::vector<uint32_t> m_parent;
  std::vector<double> m_self;
  std::vector<uint32_t> m_mirrorOf;  // per row: the row it copies, or kNoRow
  std::vector<NameStats> m_stats;
  std::vector<uint32_t> m_statsSlot;  // per string id: index into m_stats, or kNoSlice
  std::unique_ptr<Lazy> m_lazy;
};

}  // namespace dfc::profile
