#include "profile/TraceValidator.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <vector>

#include "support/NumberCast.h"

namespace dfc::profile {
namespace {

namespace dom = simdjson::dom;

// Perfetto keeps nanoseconds: end times closer than this are the same instant.
constexpr double kEpsilonUs = 1e-3;

bool isNumber(dom::element el) {
  auto t = el.type();
  return t == dom::element_type::INT64 || t == dom::element_type::UINT64 || t == dom::element_type::DOUBLE;
}

double numberOf(dom::element el) {
  switch (el.type()) {
    case dom::element_type::INT64: return static_cast<double>(el.get_int64().value_unsafe());
    case dom::element_type::UINT64: return static_cast<double>(el.get_uint64().value_unsafe());
    default: return el.get_double().value_unsafe();
  }
}

struct Slice {
  size_t index;
  double ts;
  double end;
  std::string name;
};

Error eventError(size_t index, const std::string& rule) {
  return makeError("trace event " + std::to_string(index) + ": " + rule);
}

Status checkMeta(dom::object ev, size_t index) {
  std::string_view name;
  if (ev["name"].get_string().get(name) != simdjson::SUCCESS)
    return eventError(index, "M event has no string \"name\"");
  dom::object args;
  bool hasArgs = ev["args"].get_object().get(args) == simdjson::SUCCESS;
  if (name == "process_name" || name == "thread_name") {
    std::string_view label;
    if (!hasArgs || args["name"].get_string().get(label) != simdjson::SUCCESS)
      return eventError(index, "M " + std::string(name) + " has no string args.name");
  } else if (name == "thread_sort_index" || name == "process_sort_index") {
    dom::element v;
    if (!hasArgs || args["sort_index"].get(v) != simdjson::SUCCESS || !isNumber(v))
      return eventError(index, "M " + std::string(name) + " has no numeric args.sort_index");
  }
  return Status::success();
}

Status checkNesting(std::vector<Slice>& slices, int64_t pid, int64_t tid) {
  std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.end > b.end;
  });
  std::vector<const Slice*> open;
  for (const Slice& s : slices) {
    while (!open.empty() && open.back()->end <= s.ts + kEpsilonUs) open.pop_back();
    if (!open.empty() && s.end > open.back()->end + kEpsilonUs) {
      const Slice& o = *open.back();
      return eventError(s.index, "X slice '" + s.name + "' [" + std::to_string(s.ts) + ", " +
                                     std::to_string(s.end) + "] partially overlaps event " +
                                     std::to_string(o.index) + " '" + o.name + "' [" + std::to_string(o.ts) +
                                     ", " + std::to_string(o.end) + "] on pid " + std::to_string(pid) +
                                     " tid " + std::to_string(tid) + " (slices on a row must nest)");
    }
    open.push_back(&s);
  }
  return Status::success();
}

}  // namespace

Status validateChromeTraceJson(const std::string& json) {
  dom::parser parser;
  dom::element root;
  if (auto err = parser.parse(simdjson::padded_string(json)).get(root); err != simdjson::SUCCESS)
    return makeError(std::string("trace is not valid JSON: ") + simdjson::error_message(err));
  dom::object top;
  if (root.get_object().get(top) != simdjson::SUCCESS) return makeError("trace: top level is not a JSON object");
  dom::array events;
  if (top["traceEvents"].get_array().get(events) != simdjson::SUCCESS)
    return makeError("trace: no \"traceEvents\" array at top level");

  std::map<std::pair<int64_t, int64_t>, std::vector<Slice>> rows;
  size_t index = 0;
  for (dom::element el : events) {
    dom::object ev;
    if (el.get_object().get(ev) != simdjson::SUCCESS) return eventError(index, "is not a JSON object");
    dom::element pid, tid, ts;
    if (ev["pid"].get(pid) != simdjson::SUCCESS || !isNumber(pid))
      return eventError(index, "missing or non-numeric \"pid\"");
    if (ev["tid"].get(tid) != simdjson::SUCCESS || !isNumber(tid))
      return eventError(index, "missing or non-numeric \"tid\"");
    if (ev["ts"].get(ts) != simdjson::SUCCESS || !isNumber(ts))
      return eventError(index, "missing or non-numeric \"ts\"");
    std::string_view ph;
    if (ev["ph"].get_string().get(ph) != simdjson::SUCCESS || ph.empty())
      return eventError(index, "missing or non-string \"ph\"");
    if (ph == "X") {
      dom::element dur;
      if (ev["dur"].get(dur) != simdjson::SUCCESS || !isNumber(dur))
        return eventError(index, "X event without numeric \"dur\"");
      if (numberOf(dur) < 0) return eventError(index, "X event with negative \"dur\"");
      std::string_view name;
      if (ev["name"].get_string().get(name) != simdjson::SUCCESS) name = "";
      double start = numberOf(ts);
      auto row = std::make_pair(support::saturatingInt64(numberOf(pid)), support::saturatingInt64(numberOf(tid)));
      rows[row].push_back({index, start, start + numberOf(dur), std::string(name)});
    } else if (ph == "M") {
      DFC_TRY(checkMeta(ev, index));
    }
    ++index;
  }
  for (auto& [row, slices] : rows) DFC_TRY(checkNesting(slices, row.first, row.second));
  return Status::success();
}

}  // namespace dfc::profile
