#pragma once
// A compact, read-only form of a chrome trace for viewing big files (tracy's
// idea): names and categories interned once, events as fixed-size records,
// args kept as their raw JSON text and parsed only when a slice is selected.
// A 1M-event trace costs ~50 MB here instead of ~500 MB as profile::Trace.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "profile/Trace.h"
#include "support/Error.h"

namespace dfc::profile {

struct CompactEvent {
  double ts = 0;            // microseconds
  double dur = 0;           // microseconds (X only)
  uint64_t argsOffset = 0;  // into CompactTrace::argsText
  uint32_t argsSize = 0;    // 0: no args
  uint32_t name = 0;        // into CompactTrace::strings
  uint32_t cat = 0;
  uint32_t colorKey = 0;    // the "hypersection" arg if any, else the name
  uint32_t thread = 0;      // into CompactTrace::threads
  char ph = 'X';            // 'X' or 'i' (B/E are paired into X; C go to counters)
};

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
  std::vector<CompactEvent> events;  // sorted by (pid, tid, ts, longer first)
  std::vector<CounterSeries> counters;
  std::string argsText;              // concatenated raw JSON objects
  std::map<int64_t, std::string> processNames;
  std::map<std::pair<int64_t, int64_t>, std::string> threadNames;
  std::map<std::pair<int64_t, int64_t>, int64_t> threadSortIndex;
  std::map<std::string, std::string> metadata;
  std::vector<std::string> warnings;  // what the reader left out (a cut-off file), one line each

  std::string_view string(uint32_t id) const { return strings[id]; }
  std::string_view argsJson(const CompactEvent& e) const {
    return std::string_view(argsText).substr(e.argsOffset, e.argsSize);
  }
  Args args(const CompactEvent& e) const;  // parsed on demand
};

// Same inputs as readChromeTrace (array or object form, X, B/E, i/I, C, M),
// parsed with simdjson On-Demand into the compact form. A file cut off
// mid-way (or an array without its closing ']') gives its complete events
// and a warning naming the byte where reading stopped (TraceRepair.h);
// malformed JSON elsewhere is an error naming its byte offset.
Expected<CompactTrace> readCompactTrace(const std::string& path);
Expected<CompactTrace> parseCompactTrace(const std::string& json, const std::string& sourceName);
// For traces built in memory (the recorder, tests).
CompactTrace compactTrace(const Trace& trace);

}  // namespace dfc::profile
