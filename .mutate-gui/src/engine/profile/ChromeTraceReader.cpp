// Reads chrome tracing JSON (ours and other tools': Perfetto exports, the
// PyTorch profiler, catapult samples) into a Trace. Uses simdjson's DOM with
// the error-code API so no exception escapes.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "profile/BeginEndPairing.h"
#include "profile/ChromeTrace.h"
#include "profile/RawArgs.h"
#include "profile/TraceRepair.h"
#include "support/NumberCast.h"
#include "support/SafePath.h"
#include "profile/TraceFile.h"

namespace dfc::profile {
namespace {

namespace dom = simdjson::dom;

// Other tools write numbers as strings now and then ("ts":"12.5"). Only
// finite values count: "nan" and "inf" parse, and would empty a trace.
bool numberOf(dom::element el, double& out) {
  switch (el.type()) {
    case dom::element_type::INT64: out = static_cast<double>(el.get_int64().value_unsafe()); return true;
    case dom::element_type::UINT64: out = static_cast<double>(el.get_uint64().value_unsafe()); return true;
    case dom::element_type::DOUBLE: out = el.get_double().value_unsafe(); return true;
    case dom::element_type::STRING: {
      std::string s(el.get_string().value_unsafe());
      if (s.empty()) return false;
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size() || !std::isfinite(d)) return false;
      out = d;
      return true;
    }
    default: return false;
  }
}

std::string stringOf(dom::element el) {
  switch (el.type()) {
    case dom::element_type::STRING: return std::string(el.get_string().value_unsafe());
    case dom::element_type::BOOL: return el.get_bool().value_unsafe() ? "true" : "false";
    case dom::element_type::NULL_VALUE: return "null";
    default: return simdjson::minify(el);
  }
}

ArgValue argOf(dom::element el) {
  double d = 0;
  if (el.type() != dom::element_type::STRING && numberOf(el, d)) return d;
  return stringOf(el);
}

struct BeginEnd {
  bool begin;
  TraceEvent event;
};

class Reader {
 public:
  explicit Reader(std::string source) : m_source(std::move(source)) {}

  Expected<Trace> read(dom::element root) {
    dom::array events;
    if (root.type() == dom::element_type::ARRAY) {
      events = root.get_array().value_unsafe();
    } else if (root.type() == dom::element_type::OBJECT) {
      dom::object obj = root.get_object().value_unsafe();
      if (obj["traceEvents"].get_array().get(events) != simdjson::SUCCESS)
        return makeError(m_source + ": not a chrome trace: no \"traceEvents\" array");
      dom::object other;
      if (obj["otherData"].get_object().get(other) == simdjson::SUCCESS)
        for (auto field : other) {
          const bool nested = field.value.is_object() || field.value.is_array();
          (nested ? m_trace.metadataJson : m_trace.metadata)[std::string(field.key)] = stringOf(field.value);
        }
    } else {
      return makeError(m_source + ": not a chrome trace: top level is neither an array nor an object");
    }
    m_trace.events.reserve(events.size());
    size_t index = 0;
    for (dom::element el : events) {
      dom::object ev;
      if (el.get_object().get(ev) != simdjson::SUCCESS)
        return makeError(m_source + ": event " + std::to_string(index) + " is not an object");
      if (Status st = readEvent(ev, index); !st) return st.error();
      ++index;
    }
    pairBeginEnd();
    sortEvents();
    return std::move(m_trace);
  }

 private:
  // Strings that are whole integers keep their value; other strings get
  // stable ids (in order of first appearance) far above real pids/tids.
  int64_t idOf(dom::element el, bool isPid) {
    double d = 0;
    if (el.type() != dom::element_type::STRING) return numberOf(el, d) ? support::saturatingInt64(d) : 0;
    std::string s(el.get_string().value_unsafe());
    int64_t v = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return v;
    auto it = m_stringIds.find(s);
    if (it != m_stringIds.end()) return it->second;
    int64_t id = kStringIdBase + static_cast<int64_t>(m_stringIds.size());
    m_stringIds.emplace(s, id);
    (isPid ? m_pidLabels : m_tidLabels)[id] = s;
    return id;
  }

  // A time that is present must be a finite number (traceNumberError names it).
  Status readTime(dom::object ev, const char* key, double& out, size_t index) const {
    dom::element el;
    if (ev[key].get(el) != simdjson::SUCCESS) return {};
    if (numberOf(el, out)) return {};
    const std::string shown = el.is_string() ? std::string(el.get_string().value_unsafe()) : simdjson::minify(el);
    return makeError(traceNumberError(m_source, index, key, shown));
  }

  Status readEvent(dom::object ev, size_t index) {
    std::string_view phs;
    if (ev["ph"].get_string().get(phs) != simdjson::SUCCESS || phs.size() != 1) return {};
    char ph = phs[0];
    if (std::string_view("XBEiIMC").find(ph) == std::string_view::npos) return {};  // flows, async...

    TraceEvent e;
    e.ph = ph;
    dom::element el;
    if (ev["name"].get(el) == simdjson::SUCCESS) e.name = stringOf(el);
    if (ev["cat"].get(el) == simdjson::SUCCESS) e.cat = stringOf(el);
    if (ev["pid"].get(el) == simdjson::SUCCESS) e.pid = idOf(el, true);
    if (ev["tid"].get(el) == simdjson::SUCCESS) e.tid = idOf(el, false);
    if (ph != 'M') {
      DFC_TRY(readTime(ev, "ts", e.ts, index));
      if (ph == 'X') DFC_TRY(readTime(ev, "dur", e.dur, index));
    }
    e.dur = std::max(0.0, e.dur);
    dom::object args;
    bool hasArgs = ev["args"].get_object().get(args) == simdjson::SUCCESS;

    if (ph == 'M') {
      if (hasArgs) readMeta(e, args);
      return {};
    }
    if (hasArgs) {
      for (auto field : args) {
        if (ph == 'C') {
          double d = 0;
          if (numberOf(field.value, d)) e.args.emplace_back(std::string(field.key), d);
        } else {
          e.args.emplace_back(std::string(field.key), argOf(field.value));
        }
      }
    }
    if (ph == 'I') e.ph = 'i';
    noteRowTime(e.pid, e.tid, e.ts + (ph == 'X' ? e.dur : 0.0));
    if (ph == 'B' || ph == 'E') {
      m_beginEnd.push_back({ph == 'B', std::move(e)});
      return {};
    }
    m_trace.events.push_back(std::move(e));
    return {};
  }

  void readMeta(const TraceEvent& e, dom::object args) {
    dom::element value;
    if (e.name == "process_name" && args["name"].get(value) == simdjson::SUCCESS) {
      m_trace.processNames[e.pid] = stringOf(value);
    } else if (e.name == "thread_name" && args["name"].get(value) == simdjson::SUCCESS) {
      m_trace.threadNames[{e.pid, e.tid}] = stringOf(value);
    } else if (e.name == "thread_sort_index" && args["sort_index"].get(value) == simdjson::SUCCESS) {
      double d = 0;
      if (numberOf(value, d)) m_trace.threadSortIndex[{e.pid, e.tid}] = support::saturatingInt64(d);
    }
  }

  // Every B/E event noted its row's time first, so its row id exists.
  uint32_t rowOf(int64_t pid, int64_t tid) const { return m_rowIds.at({pid, tid}); }

  void noteRowTime(int64_t pid, int64_t tid, double t) {
    auto [it, inserted] = m_rowIds.try_emplace({pid, tid}, static_cast<uint32_t>(m_rowEnds.size()));
    if (inserted)
      m_rowEnds.push_back(t);
    else
      m_rowEnds[it->second] = std::max(m_rowEnds[it->second], t);
  }

  // B/E pairs become X slices (the rule is in BeginEndPairing.h); E args
  // merge into the slice's, as in catapult.
  void pairBeginEnd() {
    std::vector<BeginEndMark> marks;
    marks.reserve(m_beginEnd.size());
    for (const BeginEnd& be : m_beginEnd)
      marks.push_back({rowOf(be.event.pid, be.event.tid), be.event.ts, be.event.name, be.begin});
    const std::vector<BeginEndPair> pairs = profile::pairBeginEnd(marks, m_rowEnds);
    for (const BeginEndPair& pair : pairs) {
      TraceEvent b = std::move(m_beginEnd[pair.begin].event);
      b.ph = 'X';
      b.dur = pair.durUs;
      if (pair.end != BeginEndPair::kOpen)
        for (auto& arg : m_beginEnd[pair.end].event.args) b.args.push_back(std::move(arg));
      m_trace.events.push_back(std::move(b));
    }
  }

  void sortEvents() {
    auto before = [](const TraceEvent& x, const TraceEvent& y) {
      if (x.pid != y.pid) return x.pid < y.pid;
      if (x.tid != y.tid) return x.tid < y.tid;
      if (x.ts != y.ts) return x.ts < y.ts;
      return x.dur > y.dur;
    };
    // Our own files are already in this order; moving 1M events costs more than checking.
    if (!std::is_sorted(m_trace.events.begin(), m_trace.events.end(), before))
      std::stable_sort(m_trace.events.begin(), m_trace.events.end(), before);
    // A string pid/tid with no M name keeps its label, so the user sees "Spans", not 1099511627776.
    for (const auto& [id, label] : m_pidLabels) m_trace.processNames.try_emplace(id, label);
    for (const TraceEvent& e : m_trace.events)
      if (auto it = m_tidLabels.find(e.tid); it != m_tidLabels.end())
        m_trace.threadNames.try_emplace({e.pid, e.tid}, it->second);
  }

  static constexpr int64_t kStringIdBase = int64_t{1} << 40;
  std::string m_source;
  Trace m_trace;
  std::vector<BeginEnd> m_beginEnd;
  std::map<std::pair<int64_t, int64_t>, uint32_t> m_rowIds;
  std::vector<double> m_rowEnds;  // latest time per row id
  std::unordered_map<std::string, int64_t> m_stringIds;
  std::map<int64_t, std::string> m_pidLabels, m_tidLabels;
};

Expected<Trace> parseWhole(simdjson::padded_string_view json, const std::string& sourceName) {
  dom::parser parser;
  dom::element root;
  if (auto err = parser.parse(json).get(root); err != simdjson::SUCCESS)
    return makeError(sourceName + ": invalid JSON: " + simdjson::error_message(err));
  return Reader(sourceName).read(root);
}

// A cut-off file: parse what is complete, and say where reading stopped.
Expected<Trace> parsePadded(simdjson::padded_string_view json, const std::string& sourceName) {
  return parseCompletePart(json, sourceName,
                           [&](simdjson::padded_string_view text) { return parseWhole(text, sourceName); });
}

}  // namespace

Expected<Trace> parseChromeTrace(const std::string& json, const std::string& sourceName) {
  const simdjson::padded_string padded(json);
  return parsePadded(padded, sourceName);
}

Expected<Trace> readChromeTrace(const std::string& path) {
  auto json = loadTraceFile(path);  // plain or .json.gz, within the memory budget
  if (!json) return json.error();
  return parsePadded(simdjson::padded_string_view(json->data(), json->size(), json->paddedCapacity()), path);
}

}  // namespace dfc::profile
