#pragma once
// The in-memory form of a chrome tracing file: what the recorder builds,
// the writer emits, the reader parses (ours or other tools') and the
// timeline view draws.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace dfc::profile {

using ArgValue = std::variant<double, std::string>;
using Args = std::vector<std::pair<std::string, ArgValue>>;  // in insertion order

struct TraceEvent {
  char ph = 'X';    // 'X' complete, 'i' instant, 'C' counter (B/E are paired into X by the reader)
  std::string name;
  std::string cat;
  int64_t pid = 0;
  int64_t tid = 0;
  double ts = 0;    // microseconds
  double dur = 0;   // microseconds, X only
  Args args;        // for 'C': the counter series (name -> value)
};

struct Trace {
  std::vector<TraceEvent> events;
  std::map<int64_t, std::string> processNames;                  // from M process_name
  std::map<std::pair<int64_t, int64_t>, std::string> threadNames;  // from M thread_name
  std::map<std::pair<int64_t, int64_t>, int64_t> threadSortIndex;  // from M thread_sort_index
  std::map<std::string, std::string> metadata;                  // top-level "otherData" / our run info
  std::map<std::string, std::string> metadataJson;  // otherData values that are objects or arrays, as raw JSON
  std::vector<std::string> warnings;  // what the reader left out (a cut-off file), one line each
};

}  // namespace dfc::profile
