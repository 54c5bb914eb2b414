#pragma once
// Chrome tracing JSON (the format Perfetto and chrome://tracing load).
#include <string>

#include "profile/Trace.h"
#include "support/Error.h"

namespace dfc::profile {

// Writes the object form {"traceEvents":[...], "displayTimeUnit":"ms", "otherData":{...}}
// with M events for processNames/threadNames/threadSortIndex. Writes to a temp
// file and renames, so a crash never leaves a half file under `path`.
Status writeChromeTrace(const Trace& trace, const std::string& path);
std::string chromeTraceToJson(const Trace& trace);
// Adds events to what chromeTraceToJson wrote, for a slice that times the
// serialization itself (the run's "trace writing"); viewers and our reader
// take events in any order.
Status appendTraceEvents(std::string& json, const std::vector<TraceEvent>& events);

// Reads array form or object form; X, B/E (paired per pid/tid into X), i/I, C, M.
// Tolerates unknown phases (skipped) and unsorted events; a file cut off
// mid-way gives its complete events plus a warning (Trace::warnings, with the
// byte offset where reading stopped); other malformed JSON is an error
// naming the file and the event index.
Expected<Trace> readChromeTrace(const std::string& path);
Expected<Trace> parseChromeTrace(const std::string& json, const std::string& sourceName);

}  // namespace dfc::profile
