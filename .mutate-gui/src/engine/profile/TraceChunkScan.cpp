// The chunk parser's fast path: trace events read straight off the bytes by
// the strict scanner of TraceJsonScan.h, into the same Fields and records as
// the simdjson On-Demand path (TraceChunkParser.cpp). On-Demand walks every
// field through its generic iterator; a trace is millions of small objects of
// one shape, and scanning them directly costs a fraction of that. Anything
// outside the scanner's subset (escapes in names, a pid written as a string,
// a time written as a string, invalid JSON) makes the whole chunk go the
// simdjson way, so results and errors stay exactly that path's.
#include <simdjson.h>

#include <cstring>

#include "profile/TraceChunkParser.h"
#include "profile/TraceJsonScan.h"

namespace dfc::profile {
namespace {

using namespace jsonscan;

enum class Key { Other, Ph, Name, Cat, Ts, Dur, Pid, Tid, Args };

// A key by its length, then its bytes.
Key keyOf(std::string_view k) {
  switch (k.size()) {
    case 2: return k == "ph" ? Key::Ph : k == "ts" ? Key::Ts : Key::Other;
    case 3:
      if (k == "pid") return Key::Pid;
      if (k == "tid") return Key::Tid;
      if (k == "dur") return Key::Dur;
      return k == "cat" ? Key::Cat : Key::Other;
    case 4: return k == "name" ? Key::Name : k == "args" ? Key::Args : Key::Other;
    default: return Key::Other;
  }
}

// A pid or tid the fast way: integers only (strings, fractions and huge
// numbers are labels or saturate: simdjson's path does those).
bool scanId(const char*& p, ChunkId& id) {
  int64_t value = 0;
  if (!integer(p, value)) return false;
  id = {value, false};
  return true;
}

// One member of an args object, validated. While no key and no string is
// escaped, no value nests an object and none of the keys below has a nested
// value (`flat`), the keys the views group by are noted as findRawArg would
// find them: the first of each name, in text order.
template <typename Keys>
bool scanArgMember(const char*& p, Keys& keys, bool& flat) {
  std::string_view key;
  bool escaped = false;
  if (!string(p, key, escaped)) return false;
  flat = flat && !escaped;
  skipSpace(p);
  if (*p++ != ':') return false;
  skipSpace(p);
  auto* slot = key == "hypersection" ? &keys.hypersection
               : key == "section_id" ? &keys.sectionId
               : key == "section"    ? &keys.section
                                     : nullptr;
  if (*p == '{' || *p == '[') {
    // findRawArg finds keys inside nested objects too, and reads a nested
    // value oddly; an array without objects holds no key (PyTorch's "Input Dims").
    const char* begin = p;
    if (!skipValue(p, 1)) return false;
    if (slot || std::memchr(begin, '{', static_cast<size_t>(p - begin))) flat = false;
    return true;
  }
  RawArg value;
  if (*p == '"') {
    if (!string(p, value.text, escaped)) return false;
    flat = flat && !escaped;
    value.isString = true;
  } else if (!scalar(p, value.text)) {
    return false;
  }
  if (slot && !*slot) *slot = value;
  return true;
}

}  // namespace

// The args object: its raw text, and its group-by keys when it is flat.
bool ChunkParser::scanArgs(const char*& p, Fields& f) {
  if (*p != '{') return false;
  const char* begin = p++;
  ArgKeys keys;
  bool flat = true;
  skipSpace(p);
  if (*p != '}') {
    while (true) {
      if (!scanArgMember(p, keys, flat)) return false;
      skipSpace(p);
      if (*p == '}') break;
      if (*p++ != ',') return false;  // a member follows: {"a":1,} is refused
      skipSpace(p);
    }
  }
  ++p;
  skipSpace(p);  // simdjson's raw_json() keeps the spaces after the object: the same span both ways
  f.args = std::string_view(begin, static_cast<size_t>(p - begin));
  keys.known = flat;
  f.argKeys = keys;
  return true;
}

bool ChunkParser::scanField(const char*& p, Fields& f) {
  std::string_view key;
  if (!rawString(p, key)) return false;
  skipSpace(p);
  if (*p++ != ':') return false;
  skipSpace(p);
  switch (keyOf(key)) {
    case Key::Ph: return rawString(p, f.ph);
    case Key::Name: return rawString(p, f.name);
    case Key::Cat: return rawString(p, f.cat);
    case Key::Ts: return number(p, f.ts);
    case Key::Dur: return number(p, f.dur);
    case Key::Pid: return scanId(p, f.pid);
    case Key::Tid: return scanId(p, f.tid);
    case Key::Args: return scanArgs(p, f);
    case Key::Other: return skipValue(p);
  }
  return false;
}

bool ChunkParser::scanEvent(const char*& p) {
  if (*p++ != '{') return false;
  Fields f;
  skipSpace(p);
  if (*p == '}') {
    ++p;
  } else {
    while (true) {
      if (!scanField(p, f)) return false;
      skipSpace(p);
      if (*p == '}') {
        ++p;
        break;
      }
      if (*p++ != ',') return false;
      skipSpace(p);
    }
  }
  return static_cast<bool>(finishEvent(f));  // an event the path refuses is simdjson's to word
}

bool ChunkParser::scanEvents(std::string_view json) {
  if (!simdjson::validate_utf8(json.data(), json.size())) return false;
  const char* p = json.data();
  const char* const end = p + json.size();
  skipSpace(p);
  if (*p++ != '[') return false;
  skipSpace(p);
  if (*p == ']') {
    ++p;
  } else {
    while (true) {
      if (!scanEvent(p)) return false;
      ++m_index;
      ++m_out.elements;
      skipSpace(p);
      if (*p == ']') {
        ++p;
        break;
      }
      if (*p++ != ',') return false;
      skipSpace(p);
    }
  }
  skipSpace(p);
  return p == end;
}

}  // namespace dfc::profile
