// Reads chrome tracing JSON straight into a CompactTrace with simdjson
// On-Demand: no DOM tape (8 bytes per input byte) and no per-event
// allocations, so a 1M-slice file opens in well under a second and 1 GB
// files fit in memory. Names and categories are interned; args stay raw JSON.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "profile/BeginEndPairing.h"
#include "profile/CompactTrace.h"
#include "profile/RawArgs.h"
#include "profile/TraceRepair.h"
#include "support/NumberCast.h"
#include "support/SafePath.h"
#include "profile/TraceFile.h"

namespace dfc::profile {
namespace {

namespace od = simdjson::ondemand;

bool parseNumber(std::string_view s, double& out) {
  if (s.empty()) return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), out);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

// Numbers, or numbers written as strings ("ts":"12.5") as some tools do.
bool numberOf(od::value& v, double& out) {
  if (v.get_double().get(out) == simdjson::SUCCESS) return true;  // the common case first
  std::string_view s;
  return v.get_string().get(s) == simdjson::SUCCESS && parseNumber(s, out);
}

std::string_view textOf(od::value& v) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) return s;
  return v.raw_json_token();  // numbers, booleans: as written
}

class CompactReader {
 public:
  CompactReader(std::string source, const char* text) : m_source(std::move(source)), m_text(text) {}

  Expected<CompactTrace> read(od::document& doc, size_t bytes) {
    m_doc = &doc;
    m_trace.events.reserve(bytes / 120);  // our events take ~125 bytes of JSON
    m_trace.argsText.reserve(bytes / 4);
    od::json_type type;
    if (auto err = doc.type().get(type)) return invalid(err);
    if (type == od::json_type::array) {
      od::array events;
      if (auto err = doc.get_array().get(events)) return invalid(err);
      if (auto st = readEvents(events); !st) return st.error();
    } else if (type == od::json_type::object) {
      od::object root;
      if (auto err = doc.get_object().get(root)) return invalid(err);
      bool sawEvents = false;
      for (auto fieldResult : root) {
        od::field field;
        if (auto err = std::move(fieldResult).get(field)) return invalid(err);
        if (field.key() == "traceEvents") {
          od::array events;
          if (field.value().get_array().get(events) != simdjson::SUCCESS)
            return makeError(m_source + ": not a chrome trace: \"traceEvents\" is not an array");
          if (auto st = readEvents(events); !st) return st.error();
          sawEvents = true;
        } else if (field.key() == "otherData") {
          od::object other;
          if (field.value().get_object().get(other) != simdjson::SUCCESS) continue;
          for (auto entry : other) {
            od::field f;
            if (auto err = std::move(entry).get(f)) return invalid(err);
            std::string_view key;
            if (f.unescaped_key().get(key)) continue;
            std::string keyCopy(key);
            od::value v = f.value();
            m_trace.metadata[keyCopy] = std::string(textOf(v));
          }
        }
      }
      if (!sawEvents) return makeError(m_source + ": not a chrome trace: no \"traceEvents\" array");
    } else {
      return makeError(m_source + ": not a chrome trace: top level is neither an array nor an object");
    }
    pairBeginEnd();
    finish();
    return std::move(m_trace);
  }

 private:
  Error invalid(simdjson::error_code err) const {
    std::string where = "near event " + std::to_string(m_index);
    const char* at = nullptr;
    if (m_doc && m_doc->current_location().get(at) == simdjson::SUCCESS && at >= m_text)
      where = "at byte " + std::to_string(at - m_text) + " (event " + std::to_string(m_index) + ")";
    return Error(m_source + ": invalid JSON " + where + ": " + simdjson::error_message(err));
  }

  uint32_t intern(std::string_view s) {
    if (s.empty()) return 0;
    auto it = m_ids.find(s);
    if (it != m_ids.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_pool.size() + 1);  // 0 is ""
    m_pool.emplace_back(s);
    m_ids.emplace(m_pool.back(), id);  // deque elements never move
    return id;
  }

  int64_t idOf(od::value& v, bool isPid) {
    int64_t i = 0;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS) return support::saturatingInt64(d);
    std::string_view s;
    if (v.get_string().get(s)) return 0;
    int64_t n = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), n);
    if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return n;
    std::string key(s);
    auto it = m_stringIds.find(key);
    if (it != m_stringIds.end()) return it->second;
    const int64_t id = kStringIdBase + static_cast<int64_t>(m_stringIds.size());
    m_stringIds.emplace(key, id);
    (isPid ? m_pidLabels : m_tidLabels)[id] = key;
    return id;
  }

  uint32_t threadOf(int64_t pid, int64_t tid) {
    if (m_lastThread && m_lastPid == pid && m_lastTid == tid) return *m_lastThread;
    auto [it, inserted] = m_threadIds.try_emplace({pid, tid}, static_cast<uint32_t>(m_trace.threads.size()));
    if (inserted) {
      m_trace.threads.push_back({pid, tid});
      m_threadEnd.push_back(0);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastThread = it->second;
    return it->second;
  }

  Status readEvents(od::array& events) {
    for (auto item : events) {
      od::object ev;
      if (auto err = item.get_object().get(ev)) {
        if (err == simdjson::INCORRECT_TYPE)
          return makeError(m_source + ": event " + std::to_string(m_index) + " is not an object");
        return invalid(err);
      }
      if (auto st = readEvent(ev); !st) return st;
      ++m_index;
    }
    return {};
  }

  Status readEvent(od::object& ev) {
    std::string_view ph, name, cat, args;
    double ts = 0, dur = 0;
    int64_t pid = 0, tid = 0;
    for (auto fieldResult : ev) {
      od::field field;
      if (auto err = std::move(fieldResult).get(field)) return invalid(err);
      const od::raw_json_string key = field.key();
      od::value v = field.value();
      if (key == "ph") {
        if (v.get_string().get(ph)) ph = {};
      } else if (key == "name") {
        name = textOf(v);
      } else if (key == "cat") {
        cat = textOf(v);
      } else if (key == "ts") {
        numberOf(v, ts);
      } else if (key == "dur") {
        numberOf(v, dur);
      } else if (key == "pid") {
        pid = idOf(v, true);
      } else if (key == "tid") {
        tid = idOf(v, false);
      } else if (key == "args") {
        od::object a;
        if (v.get_object().get(a) == simdjson::SUCCESS && a.raw_json().get(args)) args = {};
      }
    }
    if (ph.size() != 1 || std::string_view("XBEiIMC").find(ph[0]) == std::string_view::npos) return {};
    const char p = ph[0];
    if (p == 'M') return readMeta(name, pid, tid, args);
    if (p == 'C') return readCounter(name, pid, ts, args);

    CompactEvent e;
    e.ph = p == 'I' ? 'i' : p;
    e.ts = ts;
    e.dur = p == 'X' ? std::max(0.0, dur) : 0.0;
    e.name = intern(name);
    e.cat = intern(cat);
    e.colorKey = e.name;
    if (const auto hs = findRawArg(args, "hypersection"); hs && hs->isString && !hs->text.empty())
      e.colorKey = hs->text.find('\\') == std::string_view::npos ? intern(hs->text) : intern(hs->unescaped());
    e.thread = threadOf(pid, tid);
    if (!args.empty() && args != "{}") {
      e.argsOffset = m_trace.argsText.size();
      e.argsSize = static_cast<uint32_t>(args.size());
      m_trace.argsText.append(args);
    }
    double& end = m_threadEnd[e.thread];
    end = std::max(end, e.ts + e.dur);
    if (p == 'B' || p == 'E') {
      m_beginEnd.push_back(e);
    } else {
      m_trace.events.push_back(e);
    }
    return {};
  }

  // M and C events are few: their args are parsed with a small DOM parser.
  bool parseArgs(std::string_view args, simdjson::dom::object& out) {
    if (args.empty()) return false;
    m_scratch = simdjson::padded_string(args);
    return m_small.parse(m_scratch).get_object().get(out) == simdjson::SUCCESS;
  }

  Status readMeta(std::string_view name, int64_t pid, int64_t tid, std::string_view args) {
    simdjson::dom::object obj;
    if (!parseArgs(args, obj)) return {};
    std::string_view text;
    if (name == "process_name" && obj["name"].get_string().get(text) == simdjson::SUCCESS) {
      m_trace.processNames[pid] = std::string(text);
    } else if (name == "thread_name" && obj["name"].get_string().get(text) == simdjson::SUCCESS) {
      m_trace.threadNames[{pid, tid}] = std::string(text);
    } else if (name == "thread_sort_index") {
      simdjson::dom::element el;
      if (obj["sort_index"].get(el) == simdjson::SUCCESS && el.is_number())
        m_trace.threadSortIndex[{pid, tid}] = support::saturatingInt64(el.get_double().value_unsafe());
    }
    return {};
  }

  Status readCounter(std::string_view name, int64_t pid, double ts, std::string_view args) {
    simdjson::dom::object obj;
    if (!parseArgs(args, obj)) return {};
    size_t fields = 0;
    for (auto f : obj) fields += f.value.is_number() ? 1 : 0;
    for (auto f : obj) {
      if (!f.value.is_number()) continue;
      std::string series(name);
      if (fields > 1 || f.key != name) series += "." + std::string(f.key);
      if (fields == 1 && f.key == "value") series = std::string(name);
      auto [it, inserted] = m_counterIds.try_emplace({pid, series}, m_trace.counters.size());
      if (inserted) m_trace.counters.push_back({pid, series, {}, {}});
      CounterSeries& s = m_trace.counters[it->second];
      s.ts.push_back(ts);
      s.values.push_back(f.value.get_double().value_unsafe());
    }
    return {};
  }

  std::string_view nameOf(uint32_t id) const { return id == 0 ? std::string_view() : m_pool[id - 1]; }

  // B/E pairs become X slices (the rule is in BeginEndPairing.h); args stay
  // raw, so E args count only when the B had none, as in catapult.
  void pairBeginEnd() {
    std::vector<BeginEndMark> marks;
    marks.reserve(m_beginEnd.size());
    for (const CompactEvent& e : m_beginEnd) marks.push_back({e.thread, e.ts, nameOf(e.name), e.ph == 'B'});
    for (const BeginEndPair& pair : profile::pairBeginEnd(marks, m_threadEnd)) {
      CompactEvent b = m_beginEnd[pair.begin];
      b.ph = 'X';
      b.dur = pair.durUs;
      if (pair.end != BeginEndPair::kOpen && b.argsSize == 0) {
        b.argsOffset = m_beginEnd[pair.end].argsOffset;
        b.argsSize = m_beginEnd[pair.end].argsSize;
      }
      m_trace.events.push_back(b);
    }
  }

  void finish() {
    // Threads renumbered in (pid, tid) order so events sort by thread index.
    std::vector<uint32_t> order(m_trace.threads.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const auto& x = m_trace.threads[a];
      const auto& y = m_trace.threads[b];
      return x.pid != y.pid ? x.pid < y.pid : x.tid < y.tid;
    });
    std::vector<uint32_t> rank(order.size());
    std::vector<CompactThread> threads(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      rank[order[i]] = static_cast<uint32_t>(i);
      threads[i] = m_trace.threads[order[i]];
    }
    m_trace.threads = std::move(threads);
    // Files interleave threads in time order: a stable counting sort by
    // thread (one pass), then a sort within a thread only where it is needed.
    std::vector<size_t> offsets(order.size() + 1, 0);
    for (CompactEvent& e : m_trace.events) {
      e.thread = rank[e.thread];
      ++offsets[e.thread + 1];
    }
    for (size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
    bool grouped = true;
    for (size_t i = 1; i < m_trace.events.size() && grouped; ++i)
      grouped = m_trace.events[i - 1].thread <= m_trace.events[i].thread;
    if (!grouped) {
      std::vector<CompactEvent> sorted(m_trace.events.size());
      std::vector<size_t> next(offsets.begin(), offsets.end() - 1);
      for (const CompactEvent& e : m_trace.events) sorted[next[e.thread]++] = e;
      m_trace.events = std::move(sorted);
    }
    auto before = [](const CompactEvent& x, const CompactEvent& y) {
      if (x.ts != y.ts) return x.ts < y.ts;
      return x.dur > y.dur;
    };
    for (size_t t = 0; t + 1 < offsets.size(); ++t) {
      auto first = m_trace.events.begin() + static_cast<std::ptrdiff_t>(offsets[t]);
      auto last = m_trace.events.begin() + static_cast<std::ptrdiff_t>(offsets[t + 1]);
      if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
    }
    for (std::string& s : m_pool) m_trace.strings.push_back(std::move(s));
    for (const auto& [id, label] : m_pidLabels) m_trace.processNames.try_emplace(id, label);
    for (const CompactThread& t : m_trace.threads)
      if (auto it = m_tidLabels.find(t.tid); it != m_tidLabels.end())
        m_trace.threadNames.try_emplace({t.pid, t.tid}, it->second);
  }

  static constexpr int64_t kStringIdBase = int64_t{1} << 40;
  std::string m_source;
  const char* m_text = nullptr;   // the input, for byte offsets in errors
  od::document* m_doc = nullptr;
  CompactTrace m_trace;
  size_t m_index = 0;
  std::deque<std::string> m_pool;  // interned strings 1.., moved into the trace at the end
  std::unordered_map<std::string_view, uint32_t> m_ids;
  std::map<std::pair<int64_t, int64_t>, uint32_t> m_threadIds;
  std::vector<double> m_threadEnd;
  std::optional<uint32_t> m_lastThread;
  int64_t m_lastPid = 0, m_lastTid = 0;
  std::vector<CompactEvent> m_beginEnd;
  std::unordered_map<std::string, int64_t> m_stringIds;
  std::map<int64_t, std::string> m_pidLabels, m_tidLabels;
  std::map<std::pair<int64_t, std::string>, size_t> m_counterIds;
  simdjson::dom::parser m_small;
  simdjson::padded_string m_scratch;
};

Expected<CompactTrace> parseWhole(const simdjson::padded_string& json, const std::string& sourceName) {
  od::parser parser;
  od::document doc;
  if (auto err = parser.iterate(json).get(doc))
    return makeError(sourceName + ": invalid JSON: " + simdjson::error_message(err));
  return CompactReader(sourceName, json.data()).read(doc, json.size());
}

// A cut-off file: parse what is complete, and say where reading stopped.
Expected<CompactTrace> parsePadded(const simdjson::padded_string& json, const std::string& sourceName) {
  return parseCompletePart(json, sourceName,
                           [&](const simdjson::padded_string& text) { return parseWhole(text, sourceName); });
}

}  // namespace

Expected<CompactTrace> parseCompactTrace(const std::string& json, const std::string& sourceName) {
  return parsePadded(simdjson::padded_string(json), sourceName);
}

Expected<CompactTrace> readCompactTrace(const std::string& path) {
  auto json = loadTraceFile(path);  // plain or .json.gz, within the memory budget
  if (!json) return json.error();
  return parsePadded(*json, path);
}

}  // namespace dfc::profile
