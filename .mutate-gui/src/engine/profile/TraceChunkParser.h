#pragma once
// One run of trace events parsed into compact records with ids of its own
// (strings, threads, string pid/tid labels), so that the cores parse chunks
// of one file at once without sharing anything; TraceChunkMerge.cpp then
// renumbers them into one CompactTrace. The one-piece parse of a whole
// document is the same parser over the whole array.
#include <simdjson.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile/CompactTrace.h"
#include "profile/RawArgs.h"
#include "support/Error.h"

namespace dfc::profile {

// A pid or tid as the chunk read it: a number, or (isLabel) the index of a
// string the file used instead ("Spans", "stream 7").
struct ChunkId {
  int64_t value = 0;
  bool isLabel = false;
  bool operator==(const ChunkId& o) const { return value == o.value && isLabel == o.isLabel; }
};

struct ChunkThread {
  ChunkId pid, tid;
};

struct ChunkMeta {  // an M event: process_name, thread_name or thread_sort_index
  enum Kind { ProcessName, ThreadName, SortIndex } kind = ProcessName;
  ChunkId pid, tid;
  std::string text;
  int64_t sortIndex = 0;
};

struct ChunkCounter {
  ChunkId pid;
  std::string series;
  double ts = 0;
  double value = 0;
};

struct ChunkResult {
  std::vector<CompactEvent> events;    // X and i, file order; thread and string ids are the chunk's
  std::vector<CompactEvent> beginEnd;  // B and E, file order
  std::deque<std::string> strings;     // chunk string id k (k >= 1) is strings[k - 1]
  std::vector<ChunkThread> threads;
  std::vector<double> threadEnd;       // per chunk thread: the latest time seen
  std::vector<std::string> labels;     // ChunkId{isLabel} values index this
  std::vector<ChunkMeta> meta;
  std::vector<ChunkCounter> counters;
  size_t elements = 0;                 // array elements read (every phase)
};

// The names, categories and keys a chunk repeats millions of times, interned
// in an open-addressing table (linear probing, each slot keeping its string's
// 64-bit hash): a repeat costs one hash of a few fixed-size loads, a slot or
// two and one compare, with no node to chase.
class StringInterner {
 public:
  explicit StringInterner(std::deque<std::string>& strings) : m_strings(strings), m_slots(kInitialSlots) {}
  uint32_t intern(std::string_view s);  // strings[id - 1]; "" is 0

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;  // the deque's copy (its elements never move)
    uint32_t size = 0;
    uint32_t id = 0;             // 0: empty
  };
  static constexpr size_t kInitialSlots = 256;
  void grow();
  std::deque<std::string>& m_strings;
  std::vector<Slot> m_slots;
};

class ChunkParser {
 public:
  // `base`: the buffer's first byte; `baseOffset`: where that byte is in the
  // trace's text (args are kept as offsets into the text).
  ChunkParser(std::string source, const char* base, int64_t baseOffset, ChunkResult& out)
      : m_source(std::move(source)), m_base(base), m_baseOffset(baseOffset), m_out(out) {}

  // Every element of `events`; an error names the element (counted from
  // `firstIndex`) and, for malformed JSON, the byte.
  Status readEvents(simdjson::ondemand::array& events, simdjson::ondemand::document& doc, size_t firstIndex = 0);
  // The fast path (TraceChunkScan.cpp): `json` is one array of events in a
  // buffer with zeroed padding after it. True when every event was read;
  // false, with the results partly filled, when the text leaves the strict
  // subset of JSON the scanner takes: the caller then parses it again with
  // readEvents into a fresh result, which reads it or words the error.
  bool scanEvents(std::string_view json);

 private:
  // The args keys the views group by: "hypersection", "section_id" and
  // "section" as findRawArg reads them.
  struct ArgKeys {
    bool known = false;  // false: not read yet (findRawArg reads them from the args)
    std::optional<RawArg> hypersection, sectionId, section;
  };
  struct Fields {
    std::string_view ph, name, cat, args;
    ArgKeys argKeys;  // the scanner's, taken from a flat args object without escapes
    double ts = 0, dur = 0;
    std::string_view badKey, badValue;  // a time that is not a finite number
    ChunkId pid, tid;
  };
  Status readEvent(simdjson::ondemand::object& ev);
  Status readField(simdjson::ondemand::field& field, Fields& f);
  Status finishEvent(const Fields& f);
  bool scanEvent(const char*& p);
  bool scanField(const char*& p, Fields& f);
  Status addEvent(const Fields& f);
  uint32_t intern(std::string_view s);
  ChunkId idOf(simdjson::ondemand::value& v);
  uint32_t threadOf(ChunkId pid, ChunkId tid);
  void readMeta(const Fields& f);
  void readCounter(const Fields& f);
  static ArgKeys lookUpArgKeys(std::string_view args);
  void noteArgKeys(const ArgKeys& keys, CompactEvent& e);
  bool scanArgs(const char*& p, Fields& f);
  Error invalid(simdjson::error_code err) const;

  std::string m_source;
  const char* m_base;
  int64_t m_baseOffset;
  ChunkResult& m_out;
  simdjson::ondemand::document* m_doc = nullptr;
  size_t m_index = 0;
  StringInterner m_ids{m_out.strings};
  std::unordered_map<std::string, uint32_t> m_labelIds;
  std::map<std::tuple<int64_t, bool, int64_t, bool>, uint32_t> m_threadIds;
  std::optional<std::pair<ChunkThread, uint32_t>> m_lastThread;  // events come in runs of one thread
  simdjson::dom::parser m_small;  // M and C args: few, parsed whole
};

}  // namespace dfc::profile
