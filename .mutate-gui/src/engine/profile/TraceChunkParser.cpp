// Reads trace events with simdjson On-Demand into compact records: no DOM
// tape and no per-event allocation. Names and categories are interned per
// chunk; args stay in the text, with the keys the views group by (the
// hypersection, the section id and name) read here once.
#include "profile/TraceChunkParser.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "profile/RawArgs.h"
#include "support/NumberCast.h"

namespace dfc::profile {
namespace {

namespace od = simdjson::ondemand;

std::string_view textOf(od::value& v) {
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) return s;
  return v.raw_json_token();  // numbers, booleans: as written
}

// A number, or a number written as a string ("ts":"12.5"), finite only; the
// text as found, for the error, when it is not.
std::optional<double> timeOf(od::value& v, std::string_view& seen) {
  double d = 0;
  if (v.get_double().get(d) == simdjson::SUCCESS) return d;  // simdjson refuses 1e999: no infinities
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) {
    seen = s;
    return finiteNumber(s);
  }
  seen = v.raw_json_token();
  return std::nullopt;
}

}  // namespace

namespace {

uint64_t load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

uint32_t load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// A hash of a short string from fixed-size loads only (the last word
// overlaps the one before it), so no call to memcpy for the tail.
uint64_t shortStringHash(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
  auto mix = [&h](uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) mix(load64(p + i));
    mix(load64(p + n - 8));
  } else if (n >= 4) {
    mix(uint64_t{load32(p)} | uint64_t{load32(p + n - 4)} << 32);
  } else if (n > 0) {
    mix(uint64_t{static_cast<uint8_t>(p[0])} | uint64_t{static_cast<uint8_t>(p[n / 2])} << 8 |
        uint64_t{static_cast<uint8_t>(p[n - 1])} << 16);
  }
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

}  // namespace

uint32_t StringInterner::intern(std::string_view s) {
  if (s.empty()) return 0;
  const uint64_t hash = shortStringHash(s);
  const size_t mask = m_slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& slot = m_slots[i];
    if (slot.id == 0) {
      m_strings.emplace_back(s);
      slot = {hash, m_strings.back().data(), static_cast<uint32_t>(s.size()), static_cast<uint32_t>(m_strings.size())};
      if (m_strings.size() * 2 > m_slots.size()) grow();  // half full at most: probes stay short
      return static_cast<uint32_t>(m_strings.size());
    }
    if (slot.hash == hash && slot.size == s.size() && std::memcmp(slot.data, s.data(), s.size()) == 0) return slot.id;
  }
}

void StringInterner::grow() {
  std::vector<Slot> old(m_slots.size() * 2);
  old.swap(m_slots);
  const size_t mask = m_slots.size() - 1;
  for (const Slot& slot : old) {
    if (slot.id == 0) continue;
    size_t i = slot.hash & mask;
    while (m_slots[i].id != 0) i = (i + 1) & mask;
    m_slots[i] = slot;
  }
}

Error ChunkParser::invalid(simdjson::error_code err) const {
  std::string where = "near event " + std::to_string(m_index);
  const char* at = nullptr;
  if (m_doc && m_doc->current_location().get(at) == simdjson::SUCCESS && at >= m_base)
    where = "at byte " + std::to_string(m_baseOffset + (at - m_base)) + " (event " + std::to_string(m_index) + ")";
  return Error(m_source + ": invalid JSON " + where + ": " + simdjson::error_message(err));
}

uint32_t ChunkParser::intern(std::string_view s) { return m_ids.intern(s); }

// Numbers as numbers (doubles saturate), whole-integer strings as their
// value, other strings as labels of their own.
ChunkId ChunkParser::idOf(od::value& v) {
  int64_t i = 0;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return {i, false};
  double d = 0;
  if (v.get_double().get(d) == simdjson::SUCCESS) return {support::saturatingInt64(d), false};
  std::string_view s;
  if (v.get_string().get(s)) return {0, false};
  int64_t n = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), n);
  if (res.ec == std::errc() && res.ptr == s.data() + s.size()) return {n, false};
  auto [it, inserted] = m_labelIds.try_emplace(std::string(s), static_cast<uint32_t>(m_out.labels.size()));
  if (inserted) m_out.labels.emplace_back(s);
  return {it->second, true};
}

// A chunk of a trace has a few threads, often interleaved (our call, then its
// mirror on another row): a look along them beats the map until there are many.
uint32_t ChunkParser::threadOf(ChunkId pid, ChunkId tid) {
  if (m_lastThread && m_lastThread->first.pid == pid && m_lastThread->first.tid == tid) return m_lastThread->second;
  constexpr size_t kFewThreads = 32;
  if (m_out.threads.size() <= kFewThreads) {
    for (size_t t = 0; t < m_out.threads.size(); ++t)
      if (m_out.threads[t].pid == pid && m_out.threads[t].tid == tid) {
        m_lastThread = std::make_pair(ChunkThread{pid, tid}, static_cast<uint32_t>(t));
        return static_cast<uint32_t>(t);
      }
  }
  auto [it, inserted] = m_threadIds.try_emplace({pid.value, pid.isLabel, tid.value, tid.isLabel},
                                                static_cast<uint32_t>(m_out.threads.size()));
  if (inserted) {
    m_out.threads.push_back({pid, tid});
    m_out.threadEnd.push_back(0);
  }
  m_lastThread = std::make_pair(ChunkThread{pid, tid}, it->second);
  return it->second;
}

Status ChunkParser::readEvents(od::array& events, od::document& doc, size_t firstIndex) {
  m_doc = &doc;
  m_index = firstIndex;
  for (auto item : events) {
    od::object ev;
    if (auto err = item.get_object().get(ev)) {
      if (err == simdjson::INCORRECT_TYPE)
        return makeError(m_source + ": event " + std::to_string(m_index) + " is not an object");
      return invalid(err);
    }
    DFC_TRY(readEvent(ev));
    ++m_index;
    ++m_out.elements;
  }
  return {};
}

namespace {

// Which of the keys an event is read for: by its first byte, then the rest
// (the raw key ends at its closing quote). One dispatch instead of a chain of
// comparisons per field.
enum class EventKey { Other, Ph, Name, Cat, Ts, Dur, Pid, Tid, Args };

EventKey eventKey(const char* k) {
  auto is = [k](const char* word, size_t n) { return std::memcmp(k, word, n) == 0 && k[n] == '"'; };
  switch (k[0]) {
    case 'p': return is("ph", 2) ? EventKey::Ph : is("pid", 3) ? EventKey::Pid : EventKey::Other;
    case 'n': return is("name", 4) ? EventKey::Name : EventKey::Other;
    case 'c': return is("cat", 3) ? EventKey::Cat : EventKey::Other;
    case 't': return is("ts", 2) ? EventKey::Ts : is("tid", 3) ? EventKey::Tid : EventKey::Other;
    case 'd': return is("dur", 3) ? EventKey::Dur : EventKey::Other;
    case 'a': return is("args", 4) ? EventKey::Args : EventKey::Other;
    default: return EventKey::Other;
  }
}

}  // namespace

Status ChunkParser::readField(od::field& field, Fields& f) {
  const EventKey key = eventKey(field.key().raw());
  if (key == EventKey::Other) return {};
  od::value v = field.value();
  switch (key) {
    case EventKey::Ph:
      if (v.get_string().get(f.ph)) f.ph = {};
      break;
    case EventKey::Name: f.name = textOf(v); break;
    case EventKey::Cat: f.cat = textOf(v); break;
    case EventKey::Ts:
    case EventKey::Dur: {
      std::string_view seen;
      if (const auto t = timeOf(v, seen)) {
        (key == EventKey::Ts ? f.ts : f.dur) = *t;
      } else if (f.badKey.empty()) {
        f.badKey = key == EventKey::Ts ? "ts" : "dur";
        f.badValue = seen;
      }
      break;
    }
    case EventKey::Pid: f.pid = idOf(v); break;
    case EventKey::Tid: f.tid = idOf(v); break;
    case EventKey::Args: {
      od::object a;
      if (v.get_object().get(a) == simdjson::SUCCESS && a.raw_json().get(f.args)) f.args = {};
      break;
    }
    case EventKey::Other: break;
  }
  return {};
}

Status ChunkParser::readEvent(od::object& ev) {
  Fields f;
  for (auto fieldResult : ev) {
    od::field field;
    if (auto err = std::move(fieldResult).get(field)) return invalid(err);
    DFC_TRY(readField(field, f));
  }
  return finishEvent(f);
}

Status ChunkParser::finishEvent(const Fields& f) {
  if (f.ph.size() != 1 || std::string_view("XBEiIMC").find(f.ph[0]) == std::string_view::npos) return {};
  const char p = f.ph[0];
  if (p == 'M') {
    readMeta(f);
    return {};
  }
  // dur only matters on X; a time that is there must be a number, or the trace would sort and scale by NaN.
  if (!f.badKey.empty() && (f.badKey == "ts" || p == 'X'))
    return makeError(traceNumberError(m_source, m_index, f.badKey, f.badValue));
  if (p == 'C') {
    readCounter(f);
    return {};
  }
  return addEvent(f);
}

Status ChunkParser::addEvent(const Fields& f) {
  const char p = f.ph[0];
  CompactEvent e;
  e.ph = p == 'I' ? 'i' : p;
  e.ts = f.ts;
  e.dur = p == 'X' ? std::max(0.0, f.dur) : 0.0;
  e.name = intern(f.name);
  e.cat = intern(f.cat);
  e.colorKey = e.name;
  e.thread = threadOf(f.pid, f.tid);
  if (!f.args.empty() && f.args != "{}") {
    e.setArgs(static_cast<uint64_t>(m_baseOffset + (f.args.data() - m_base)), f.args.size());
    noteArgKeys(f.argKeys.known ? f.argKeys : lookUpArgKeys(f.args), e);
  }
  double& end = m_out.threadEnd[e.thread];
  end = std::max(end, e.ts + e.dur);
  (p == 'B' || p == 'E' ? m_out.beginEnd : m_out.events).push_back(e);
  return {};
}

ChunkParser::ArgKeys ChunkParser::lookUpArgKeys(std::string_view args) {
  return {true, findRawArg(args, "hypersection"), findRawArg(args, "section_id"), findRawArg(args, "section")};
}

// What the views group and colour by, read from the raw args once.
void ChunkParser::noteArgKeys(const ArgKeys& keys, CompactEvent& e) {
  if (const auto& hs = keys.hypersection; hs && hs->isString && !hs->text.empty()) {
    e.colorKey = hs->text.find('\\') == std::string_view::npos ? intern(hs->text) : intern(hs->unescaped());
    e.flags |= CompactEvent::kHasHypersection;
  }
  const auto& id = keys.sectionId;
  if (!id) return;
  const auto& name = keys.section;
  if ((!name || !name->isString || name->text.empty()) && isPlainSectionId(id->text)) {
    e.section = intern(id->text);  // our calls' "section_id":12, the key as written (no string built per call)
    return;
  }
  e.section = intern(sectionKey(id->isString ? id->unescaped() : std::string(id->text), id->isString,
                                name && name->isString ? name->unescaped() : std::string()));
}

void ChunkParser::readMeta(const Fields& f) {
  simdjson::dom::object obj;
  if (f.args.empty() || m_small.parse(f.args.data(), f.args.size(), true).get_object().get(obj)) return;
  std::string_view text;
  if (f.name == "process_name" && obj["name"].get_string().get(text) == simdjson::SUCCESS) {
    m_out.meta.push_back({ChunkMeta::ProcessName, f.pid, f.tid, std::string(text), 0});
  } else if (f.name == "thread_name" && obj["name"].get_string().get(text) == simdjson::SUCCESS) {
    m_out.meta.push_back({ChunkMeta::ThreadName, f.pid, f.tid, std::string(text), 0});
  } else if (f.name == "thread_sort_index") {
    simdjson::dom::element el;
    if (obj["sort_index"].get(el) == simdjson::SUCCESS && el.is_number())
      m_out.meta.push_back(
          {ChunkMeta::SortIndex, f.pid, f.tid, {}, support::saturatingInt64(el.get_double().value_unsafe())});
  }
}

// A C event: each numeric arg is a sample of a series ("name", or
// "name.key" when it has several or the key is not the name or "value").
void ChunkParser::readCounter(const Fields& f) {
  simdjson::dom::object obj;
  if (f.args.empty() || m_small.parse(f.args.data(), f.args.size(), true).get_object().get(obj)) return;
  size_t fields = 0;
  for (auto field : obj) fields += field.value.is_number() ? 1 : 0;
  for (auto field : obj) {
    if (!field.value.is_number()) continue;
    std::string series(f.name);
    if (fields > 1 || field.key != f.name) series += "." + std::string(field.key);
    if (fields == 1 && field.key == "value") series = std::string(f.name);
    m_out.counters.push_back({f.pid, std::move(series), f.ts, field.value.get_double().value_unsafe()});
  }
}

}  // namespace dfc::profile
