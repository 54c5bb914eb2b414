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

// A cheap hash for the short strings a trace repeats (names, categories,
// keys): 8 bytes at a time, multiply and fold.
struct ShortStringHash {
  size_t operator()(std::string_view s) const noexcept;
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

 private:
  struct Fields;
  Status readEvent(simdjson::ondemand::object& ev);
  Status readField(simdjson::ondemand::field& field, Fields& f);
  Status addEvent(const Fields& f);
  uint32_t intern(std::string_view s);
  ChunkId idOf(simdjson::ondemand::value& v);
  uint32_t threadOf(ChunkId pid, ChunkId tid);
  void readMeta(const Fields& f);
  void readCounter(const Fields& f);
  void noteArgKeys(std::string_view args, CompactEvent& e);
  Error invalid(simdjson::error_code err) const;

  std::string m_source;
  const char* m_base;
  int64_t m_baseOffset;
  ChunkResult& m_out;
  simdjson::ondemand::document* m_doc = nullptr;
  size_t m_index = 0;
  std::unordered_map<std::string_view, uint32_t, ShortStringHash> m_ids;
  std::unordered_map<std::string, uint32_t> m_labelIds;
  std::map<std::tuple<int64_t, bool, int64_t, bool>, uint32_t> m_threadIds;
  std::optional<std::pair<ChunkThread, uint32_t>> m_lastThread;  // events come in runs of one thread
  simdjson::dom::parser m_small;  // M and C args: few, parsed whole
};

}  // namespace dfc::profile
