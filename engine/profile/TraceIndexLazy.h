#pragma once
// Internal to TraceIndex: what is built on first use, so that opening a trace
// pays for neither. The section and hypersection of every slice are read from
// the raw args by the first aggregation grouped by them; each name's slices
// in time order are sorted by the first walk through search matches.
#include <mutex>
#include <string>
#include <vector>

#include "profile/TraceIndex.h"

namespace dfc::profile {

struct TraceIndex::Lazy {
  std::once_flag argsOnce;
  std::vector<std::string> keys{std::string()};  // [0] = "": the slice has no such arg
  std::vector<uint32_t> section;                 // per event, into keys
  std::vector<uint32_t> hypersection;

  std::once_flag namesOnce;
  std::vector<uint32_t> nameOffsets;  // per stats slot, into nameSlices
  std::vector<uint32_t> nameSlices;   // event indices per name, by (start, index)
};

}  // namespace dfc::profile
