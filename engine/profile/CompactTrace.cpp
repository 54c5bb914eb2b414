#include "profile/CompactTrace.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "support/JsonWriter.h"

namespace dfc::profile {
namespace {

void appendJsonString(std::string& out, std::string_view s) { support::JsonWriter::appendEscaped(out, s); }

void appendNumber(std::string& out, double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  out += buf;
}

}  // namespace

Args CompactTrace::args(const CompactEvent& e) const {
  Args out;
  if (e.argsSize == 0) return out;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(simdjson::padded_string(argsJson(e))).get_object().get(obj) != simdjson::SUCCESS) return out;
  for (auto field : obj) {
    std::string key(field.key);
    switch (field.value.type()) {
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
      case simdjson::dom::element_type::DOUBLE: out.emplace_back(key, field.value.get_double().value_unsafe()); break;
      case simdjson::dom::element_type::STRING: out.emplace_back(key, std::string(field.value.get_string().value_unsafe())); break;
      case simdjson::dom::element_type::BOOL: out.emplace_back(key, std::string(field.value.get_bool().value_unsafe() ? "true" : "false")); break;
      case simdjson::dom::element_type::NULL_VALUE: out.emplace_back(key, std::string("null")); break;
      default: out.emplace_back(key, simdjson::minify(field.value));
    }
  }
  return out;
}

CompactTrace compactTrace(const Trace& trace) {
  CompactTrace out;
  out.processNames = trace.processNames;
  out.threadNames = trace.threadNames;
  out.threadSortIndex = trace.threadSortIndex;
  out.metadata = trace.metadata;
  out.warnings = trace.warnings;
  std::unordered_map<std::string, uint32_t> ids;
  auto intern = [&](const std::string& s) -> uint32_t {
    if (s.empty()) return 0;
    auto [it, inserted] = ids.try_emplace(s, static_cast<uint32_t>(out.strings.size()));
    if (inserted) out.strings.push_back(s);
    return it->second;
  };
  std::map<std::pair<int64_t, int64_t>, uint32_t> threadIds;
  for (const TraceEvent& ev : trace.events)
    if (ev.ph == 'X' || ev.ph == 'i') threadIds.try_emplace({ev.pid, ev.tid}, 0);
  for (auto& [key, id] : threadIds) {
    id = static_cast<uint32_t>(out.threads.size());
    out.threads.push_back({key.first, key.second});
  }
  std::map<std::pair<int64_t, std::string>, size_t> counterIds;
  for (const TraceEvent& ev : trace.events) {
    if (ev.ph == 'C') {
      for (const auto& [key, value] : ev.args) {
        const auto* number = std::get_if<double>(&value);
        if (!number) continue;
        const std::string series = ev.args.size() > 1 || (key != ev.name && key != "value") ? ev.name + "." + key : ev.name;
        auto [it, inserted] = counterIds.try_emplace({ev.pid, series}, out.counters.size());
        if (inserted) out.counters.push_back({ev.pid, series, {}, {}});
        out.counters[it->second].ts.push_back(ev.ts);
        out.counters[it->second].values.push_back(*number);
      }
      continue;
    }
    if (ev.ph != 'X' && ev.ph != 'i') continue;
    CompactEvent e;
    e.ph = ev.ph;
    e.ts = ev.ts;
    e.dur = ev.ph == 'X' ? std::max(0.0, ev.dur) : 0.0;
    e.name = intern(ev.name);
    e.cat = intern(ev.cat);
    e.colorKey = e.name;
    e.thread = threadIds[{ev.pid, ev.tid}];
    if (!ev.args.empty()) {
      e.argsOffset = out.argsText.size();
      out.argsText += '{';
      bool first = true;
      for (const auto& [key, value] : ev.args) {
        if (!first) out.argsText += ',';
        first = false;
        appendJsonString(out.argsText, key);
        out.argsText += ':';
        if (const auto* number = std::get_if<double>(&value)) {
          appendNumber(out.argsText, *number);
        } else {
          const auto& text = std::get<std::string>(value);
          appendJsonString(out.argsText, text);
          if (key == "hypersection") e.colorKey = intern(text);
        }
      }
      out.argsText += '}';
      e.argsSize = static_cast<uint32_t>(out.argsText.size() - e.argsOffset);
    }
    out.events.push_back(e);
  }
  std::stable_sort(out.events.begin(), out.events.end(), [](const CompactEvent& x, const CompactEvent& y) {
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.ts != y.ts) return x.ts < y.ts;
    return x.dur > y.dur;
  });
  return out;
}

}  // namespace dfc::profile
