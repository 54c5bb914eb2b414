#include "profile/CompactTrace.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "profile/RawArgs.h"
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

std::string CompactTrace::argsJson(const CompactEvent& e) const {
  if (e.argsSize() == 0 || !text) return {};
  return text->range(e.argsOffset(), e.argsSize());
}

Args CompactTrace::args(const CompactEvent& e) const {
  Args out;
  const std::string json = argsJson(e);
  if (json.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(simdjson::padded_string(json)).get_object().get(obj) != simdjson::SUCCESS) return out;
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

bool isPlainSectionId(std::string_view idText) {
  const bool digits = !idText.empty() && idText.size() < 16 &&
                      std::all_of(idText.begin(), idText.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits && (idText.size() == 1 || idText[0] != '0');
}

std::string sectionKey(std::string_view idText, bool idIsString, std::string_view name) {
  std::string key;
  if (isPlainSectionId(idText)) {
    key = std::string(idText);  // the common case, "12", as it is
  } else if (!idText.empty()) {
    const auto number = idIsString ? std::nullopt : finiteNumber(idText);
    if (number && *number == std::floor(*number) && std::abs(*number) < 9e15) {
      char buf[32];
      const auto res = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(*number));
      key.assign(buf, res.ptr);  // 12.0 and 1.2e1 group with 12
    } else {
      key = std::string(idText);
    }
  }
  if (!name.empty()) key += (key.empty() ? "" : " ") + std::string(name);
  return key;
}

// Our traces name a call's section and hypersection once, in the `sections`
// table ({"3":{"name":"conv1","hypersection":"hs2_conv2d",...}}): a key that
// is a bare id gets the section's name, a call without a hypersection arg the
// table's hypersection.
void nameSectionsFromMetadata(CompactTrace& trace) {
  const auto it = trace.metadata.find("sections");
  if (it == trace.metadata.end()) return;
  simdjson::dom::parser parser;
  simdjson::dom::object table;
  if (parser.parse(simdjson::padded_string(it->second)).get_object().get(table) != simdjson::SUCCESS) return;
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> named;  // id -> name, hypersection
  for (auto field : table) {
    std::string_view name, hypersection;
    if (field.value["name"].get_string().get(name) != simdjson::SUCCESS) name = {};
    if (field.value["hypersection"].get_string().get(hypersection) != simdjson::SUCCESS) hypersection = {};
    named.emplace(field.key, std::make_pair(std::string(name), std::string(hypersection)));
  }
  if (named.empty()) return;
  std::unordered_map<std::string, uint32_t> ids;  // the trace's strings, so a key is never interned twice
  for (uint32_t id = 1; id < trace.strings.size(); ++id) ids.try_emplace(trace.strings[id], id);
  auto intern = [&](const std::string& s) {
    if (s.empty()) return uint32_t{0};
    auto [slot, inserted] = ids.try_emplace(s, static_cast<uint32_t>(trace.strings.size()));
    if (inserted) trace.strings.push_back(s);
    return slot->second;
  };
  struct Resolved {
    bool done = false;
    uint32_t section = 0, hypersection = 0;
  };
  std::vector<Resolved> resolved(trace.strings.size());
  for (CompactEvent& e : trace.events) {
    if (e.section == 0 || e.section >= resolved.size()) continue;
    Resolved& r = resolved[e.section];
    if (!r.done) {
      r = {true, e.section, 0};
      const std::string key(trace.strings[e.section]);
      if (const auto entry = named.find(key); entry != named.end() && key.find(' ') == std::string::npos) {
        if (!entry->second.first.empty()) r.section = intern(key + " " + entry->second.first);
        r.hypersection = intern(entry->second.second);
      }
    }
    e.section = r.section;
    if (r.hypersection != 0 && !(e.flags & CompactEvent::kHasHypersection)) {
      e.colorKey = r.hypersection;
      e.flags |= CompactEvent::kHasHypersection;
    }
  }
}

bool isMirrorCategory(std::string_view cat) {
  while (!cat.empty()) {
    const size_t comma = cat.find(',');
    if (cat.substr(0, comma) == "mirror") return true;
    if (comma == std::string_view::npos) break;
    cat.remove_prefix(comma + 1);
  }
  return false;
}

namespace {

// The args of one in-memory event as JSON appended to `text`, and what the
// compact record keeps of them (colour key, section key).
void compactArgs(const Args& args, std::string& text, CompactEvent& e, const std::function<uint32_t(const std::string&)>& intern) {
  const uint64_t offset = text.size();
  text += '{';
  std::string idText, sectionName;
  bool idIsString = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& [key, value] = args[i];
    if (i > 0) text += ',';
    appendJsonString(text, key);
    text += ':';
    if (const auto* number = std::get_if<double>(&value)) {
      appendNumber(text, *number);
      if (key == "section_id") idText = text.substr(text.rfind(':') + 1);
      continue;
    }
    const auto& str = std::get<std::string>(value);
    appendJsonString(text, str);
    if (key == "hypersection" && !str.empty()) {
      e.colorKey = intern(str);
      e.flags |= CompactEvent::kHasHypersection;
    } else if (key == "section_id") {
      idText = str;
      idIsString = true;
    } else if (key == "section") {
      sectionName = str;
    }
  }
  text += '}';
  e.setArgs(offset, text.size() - offset);
  e.section = intern(sectionKey(idText, idIsString, sectionName));
}

void addCounterSamples(const TraceEvent& ev, CompactTrace& out, std::map<std::pair<int64_t, std::string>, size_t>& ids) {
  for (const auto& [key, value] : ev.args) {
    const auto* number = std::get_if<double>(&value);
    if (!number) continue;
    const std::string series = ev.args.size() > 1 || (key != ev.name && key != "value") ? ev.name + "." + key : ev.name;
    auto [it, inserted] = ids.try_emplace({ev.pid, series}, out.counters.size());
    if (inserted) out.counters.push_back({ev.pid, series, {}, {}});
    out.counters[it->second].ts.push_back(ev.ts);
    out.counters[it->second].values.push_back(*number);
  }
}

}  // namespace

CompactTrace compactTrace(const Trace& trace) {
  CompactTrace out;
  out.processNames = trace.processNames;
  out.threadNames = trace.threadNames;
  out.threadSortIndex = trace.threadSortIndex;
  out.metadata = trace.metadata;
  for (const auto& [key, json] : trace.metadataJson) out.metadata[key] = json;
  out.warnings = trace.warnings;
  std::unordered_map<std::string, uint32_t> ids;
  const std::function<uint32_t(const std::string&)> intern = [&](const std::string& s) -> uint32_t {
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
  std::string argsText;
  for (const TraceEvent& ev : trace.events) {
    if (ev.ph == 'C') addCounterSamples(ev, out, counterIds);
    if (ev.ph != 'X' && ev.ph != 'i') continue;
    CompactEvent e;
    e.ph = ev.ph;
    e.ts = ev.ts;
    e.dur = ev.ph == 'X' ? std::max(0.0, ev.dur) : 0.0;
    e.name = intern(ev.name);
    e.cat = intern(ev.cat);
    e.colorKey = e.name;
    if (isMirrorCategory(ev.cat)) e.flags |= CompactEvent::kMirror;
    e.thread = threadIds[{ev.pid, ev.tid}];
    if (!ev.args.empty()) compactArgs(ev.args, argsText, e, intern);
    out.events.push_back(e);
  }
  out.text = TraceText::fromMemory(argsText, "trace args");
  std::stable_sort(out.events.begin(), out.events.end(), [](const CompactEvent& x, const CompactEvent& y) {
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.ts != y.ts) return x.ts < y.ts;
    return x.dur > y.dur;
  });
  nameSectionsFromMetadata(out);
  keyMirrorsFromOriginals(out);
  return out;
}

}  // namespace dfc::profile
