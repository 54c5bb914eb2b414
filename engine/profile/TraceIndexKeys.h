#pragma once
// Internal to TraceIndex: the section and hypersection of every slice, read
// from the raw args on the first aggregation that groups by them (opening a
// trace does not pay for scanning every args object).
#include <mutex>
#include <string>
#include <vector>

#include "profile/TraceIndex.h"

namespace dfc::profile {

struct TraceIndex::ArgKeys {
  std::once_flag once;
  std::vector<std::string> keys{std::string()};  // [0] = "": the slice has no such arg
  std::vector<uint32_t> section;                 // per event, into keys
  std::vector<uint32_t> hypersection;
};

}  // namespace dfc::profile
