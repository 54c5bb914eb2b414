#pragma once
// Internal to TraceIndex: what is built on first use, so that opening a trace
// pays for none of it: each name's counted slices in time order, sorted by
// the first walk through search matches.
#include <mutex>
#include <vector>

#include "profile/TraceIndex.h"

namespace dfc::profile {

struct TraceIndex::Lazy {
  std::once_flag namesOnce;
  std::vector<uint32_t> nameOffsets;  // per stats slot, into nameSlices
  std::vector<uint32_t> nameSlices;   // event indices per name, by (start, index)
};

}  // namespace dfc::profile
