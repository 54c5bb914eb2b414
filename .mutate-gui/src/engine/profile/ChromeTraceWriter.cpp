// Writes a Trace as chrome tracing JSON (object form), sorted and properly
// nested so Perfetto and chrome://tracing draw every slice.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "profile/ChromeTrace.h"
#include "support/FileUtil.h"
#include "support/JsonWriter.h"
#include "profile/TraceFile.h"

namespace dfc::profile {
namespace {

using support::JsonWriter;

// JSON has no NaN/Inf and a trace viewer chokes on null numbers: write 0.
double finiteOrZero(double d) { return std::isfinite(d) ? d : 0.0; }

void writeMetaEvent(JsonWriter& w, const char* name, int64_t pid, int64_t tid) {
  w.beginObject().field("ph", "M").field("name", name).field("pid", pid).field("tid", tid).field("ts", 0);
}

void writeArgs(JsonWriter& w, const Args& args) {
  w.key("args").beginObject();
  for (const auto& [k, v] : args) {
    w.key(k);
    if (const double* d = std::get_if<double>(&v)) {
      w.value(finiteOrZero(*d));
    } else {
      w.value(std::get<std::string>(v));
    }
  }
  w.endObject();
}

void writeEvent(JsonWriter& w, const TraceEvent& e, double dur) {
  char ph[2] = {e.ph == 'I' ? 'i' : e.ph, '\0'};
  w.beginObject().field("ph", ph).field("name", e.name);
  if (!e.cat.empty()) w.field("cat", e.cat);
  w.field("pid", e.pid).field("tid", e.tid).field("ts", finiteOrZero(e.ts));
  if (e.ph == 'X') w.field("dur", dur);
  if (e.ph == 'i' || e.ph == 'I') w.field("s", "t");
  if (!e.args.empty() || e.ph == 'C') writeArgs(w, e.args);
  w.endObject();
}

// Event order: by row, then time, enclosing slices (longer) before nested ones.
std::vector<size_t> sortedOrder(const std::vector<TraceEvent>& events) {
  std::vector<size_t> order(events.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TraceEvent& x = events[a];
    const TraceEvent& y = events[b];
    if (x.pid != y.pid) return x.pid < y.pid;
    if (x.tid != y.tid) return x.tid < y.tid;
    double xt = finiteOrZero(x.ts), yt = finiteOrZero(y.ts);
    if (xt != yt) return xt < yt;
    return finiteOrZero(x.dur) > finiteOrZero(y.dur);
  });
  return order;
}

// Durations after clamping: negative/NaN -> 0, and a slice that starts inside
// another on its row but ends after it is clipped to the enclosing end, since
// viewers drop or misdraw slices that overlap without nesting.
std::vector<double> nestedDurations(const std::vector<TraceEvent>& events, const std::vector<size_t>& order) {
  std::vector<double> dur(events.size(), 0.0);
  std::vector<double> openEnds;  // stack of enclosing slice ends on the current row
  const TraceEvent* rowOf = nullptr;
  for (size_t idx : order) {
    const TraceEvent& e = events[idx];
    if (e.ph != 'X') continue;
    if (!rowOf || rowOf->pid != e.pid || rowOf->tid != e.tid) openEnds.clear();
    rowOf = &e;
    double ts = finiteOrZero(e.ts);
    double d = std::max(0.0, finiteOrZero(e.dur));
    while (!openEnds.empty() && openEnds.back() <= ts) openEnds.pop_back();
    if (!openEnds.empty() && ts + d > openEnds.back()) d = std::max(0.0, openEnds.back() - ts);
    dur[idx] = d;
    openEnds.push_back(ts + d);
  }
  return dur;
}

}  // namespace

std::string chromeTraceToJson(const Trace& trace) {
  JsonWriter w;
  size_t bytes = 256;  // about 100 bytes an event and 30 an arg: the text is not copied as it grows
  for (const TraceEvent& e : trace.events) bytes += 100 + 30 * e.args.size();
  w.reserve(bytes);
  w.beginObject();
  w.key("traceEvents").beginArray();
  for (const auto& [pid, name] : trace.processNames) {
    writeMetaEvent(w, "process_name", pid, 0);
    w.key("args").beginObject().field("name", name).endObject().endObject();
  }
  for (const auto& [row, name] : trace.threadNames) {
    writeMetaEvent(w, "thread_name", row.first, row.second);
    w.key("args").beginObject().field("name", name).endObject().endObject();
  }
  for (const auto& [row, index] : trace.threadSortIndex) {
    writeMetaEvent(w, "thread_sort_index", row.first, row.second);
    w.key("args").beginObject().field("sort_index", index).endObject().endObject();
  }

  std::vector<size_t> order = sortedOrder(trace.events);
  std::vector<double> dur = nestedDurations(trace.events, order);
  for (size_t idx : order) writeEvent(w, trace.events[idx], dur[idx]);
  w.endArray();
  w.field("displayTimeUnit", "ms");
  w.key("otherData").beginObject();
  for (const auto& [k, v] : trace.metadata) w.field(k, v);
  for (const auto& [k, json] : trace.metadataJson) w.key(k).raw(json);
  w.endObject();
  w.endObject();
  return w.take();
}

Status appendTraceEvents(std::string& json, const std::vector<TraceEvent>& events) {
  // Escaped strings cannot hold the raw quotes of this marker, so its last occurrence ends the event array.
  constexpr std::string_view kEnd = "],\"displayTimeUnit\"";
  const size_t at = json.rfind(kEnd);
  if (at == std::string::npos || at == 0) return internalError("appendTraceEvents: not a trace chromeTraceToJson wrote");
  bool first = json[at - 1] == '[';
  std::string more;
  for (const TraceEvent& e : events) {
    JsonWriter w;
    writeEvent(w, e, std::max(0.0, finiteOrZero(e.dur)));
    more += (first ? "" : ",") + w.str();
    first = false;
  }
  json.insert(at, more);
  return {};
}

Status writeChromeTrace(const Trace& trace, const std::string& path) {
  return writeTraceFile(path, chromeTraceToJson(trace));  // gzip when the path ends in .gz
}

}  // namespace dfc::profile
