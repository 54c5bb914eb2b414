#pragma once
// A compact, read-only form of a chrome trace for viewing big files (tracy's
// and Perfetto's trace processor's idea): names, categories and group keys
// interned once, events as fixed-size 48-byte records, args left in the
// trace's text (for a plain file: on disk) and parsed only when a slice is
// shown. What the views and `dfc trace` group by (a slice's hypersection and
// section) is read while parsing, so no later question reads the args again.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "profile/Trace.h"
#include "profile/TraceText.h"
#include "support/Error.h"

namespace dfc::profile {

struct CompactEvent {
  static constexpr uint8_t kMirror = 1;           // its category says "mirror": a copy of a call shown on another row
  static constexpr uint8_t kHasHypersection = 2;  // colorKey is its "hypersection" arg (not its name)
  static constexpr uint64_t kMaxArgsSize = (uint64_t{1} << 24) - 1;

  double ts = 0;          // microseconds
  double dur = 0;         // microseconds (X only)
  uint64_t args = 0;      // the raw args JSON in CompactTrace::text: offset << 24 | size (size 0: none)
  uint32_t name = 0;      // into CompactTrace::strings
  uint32_t cat = 0;
  uint32_t colorKey = 0;  // the "hypersection" arg if any, else the name
  uint32_t section = 0;   // the group-by-section key ("3 conv1"), 0: none
  uint32_t thread = 0;    // into CompactTrace::threads
  char ph = 'X';          // 'X' or 'i' (B/E are paired into X; C go to counters)
  uint8_t flags = 0;

  uint64_t argsOffset() const { return args >> 24; }
  uint32_t argsSize() const { return static_cast<uint32_t>(args & kMaxArgsSize); }
  void setArgs(uint64_t offset, uint64_t size) { args = size == 0 || size > kMaxArgsSize ? 0 : offset << 24 | size; }
  bool isMirror() const { return flags & kMirror; }
};
static_assert(sizeof(CompactEvent) == 48, "a slice record stays 48 bytes");

struct CompactThread {
  int64_t pid = 0;
  int64_t tid = 0;
};

struct CounterSeries {
  int64_t pid = 0;
  std::string name;  // "loss", or "memory.used" when a C event carries several series
  std::vector<double> ts;
  std::vector<double> values;
};

struct CompactTrace {
  std::vector<std::string> strings{std::string()};  // [0] = ""
  std::vector<CompactThread> threads;
  std::vector<CompactEvent> events;  // sorted by (thread, ts, longer first)
  std::vector<CounterSeries> counters;
  std::shared_ptr<const TraceText> text;  // where the args are (the file, or memory)
  std::map<int64_t, std::string> processNames;
  std::map<std::pair<int64_t, int64_t>, std::string> threadNames;
  std::map<std::pair<int64_t, int64_t>, int64_t> threadSortIndex;
  // "otherData": strings as their text, other values (the `sections` table) as raw JSON.
  std::map<std::string, std::string> metadata;
  std::vector<std::string> warnings;  // what the reader left out (a cut-off file), one line each

  std::string_view string(uint32_t id) const { return strings[id]; }
  // The event's args as raw JSON, read from the text ("" without args, or
  // when the file can no longer be read).
  std::string argsJson(const CompactEvent& e) const;
  Args args(const CompactEvent& e) const;  // parsed on demand
  // The group-by-hypersection key: the arg, or "" without one.
  uint32_t hypersectionKey(const CompactEvent& e) const { return e.flags & CompactEvent::kHasHypersection ? e.colorKey : 0; }
};

// Same inputs as readChromeTrace (array or object form, X, B/E, i/I, C, M).
// A plain file is read in chunks parsed on every core (simdjson On-Demand)
// and never held whole; a .json.gz is inflated first. A file cut off mid-way
// (or an array without its closing ']') gives its complete events and a
// warning naming the byte where reading stopped (TraceRepair.h); malformed
// JSON elsewhere is an error naming its byte offset; a time that is not a
// finite number ("nan", "inf") is an error naming the event.
Expected<CompactTrace> readCompactTrace(const std::string& path);
Expected<CompactTrace> parseCompactTrace(const std::string& json, const std::string& sourceName);
// For traces built in memory (the recorder, tests).
CompactTrace compactTrace(const Trace& trace);
// How big the chunks the cores parse are (8 MiB; 0 restores that). Tests and
// the fuzz target make them tiny, so that small inputs cross many seams.
void setTraceChunkBytes(uint64_t bytes);
// Whether chunks go through the strict scanner first (on) or straight to
// simdjson On-Demand; tests read traces both ways and compare.
void setTraceScanner(bool on);

// The group-by-section key of a slice: its `section_id`, with its `section`
// name when the slice carries one ("3 conv1"), else the id alone; "" without an id.
std::string sectionKey(std::string_view idText, bool idIsString, std::string_view name);
// An id that is its own key: digits without a leading zero ("12", not "012" or "1.5").
bool isPlainSectionId(std::string_view idText);
// Keys that are a bare id get the name the trace's `sections` table gives
// that id (our traces write the names once there, not per call).
void nameSectionsFromMetadata(CompactTrace& trace);
// A category of comma-separated tokens, one of them "mirror".
bool isMirrorCategory(std::string_view cat);
// The tid whose slices the marked ones copy: the trace's `mirrors` metadata
// ({"category":"mirror","of_tid":0}), else 0 (our whole-model row).
int64_t mirroredTid(const CompactTrace& trace);
// Our mirrors carry no args (they are copies): each marked slice without a
// section key takes its original's section and hypersection keys, so a
// mirror row groups like the row it copies when that row is not selected.
void keyMirrorsFromOriginals(CompactTrace& trace);

}  // namespace dfc::profile
