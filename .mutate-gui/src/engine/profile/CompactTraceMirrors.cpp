// Mirror slices (a call's copy on its hyperfunction row, TraceIndex.h) take
// their keys from the call they copy.
#include <simdjson.h>

#include "profile/CompactTrace.h"
#include "profile/ParallelRows.h"
#include "profile/RowSearch.h"

namespace dfc::profile {

int64_t mirroredTid(const CompactTrace& trace) {
  const auto it = trace.metadata.find("mirrors");
  if (it == trace.metadata.end()) return 0;
  simdjson::dom::parser parser;
  int64_t tid = 0;
  if (parser.parse(simdjson::padded_string(it->second))["of_tid"].get_int64().get(tid) != simdjson::SUCCESS) return 0;
  return tid;
}

void keyMirrorsFromOriginals(CompactTrace& trace) {
  auto& events = trace.events;
  const int64_t tid = mirroredTid(trace);
  // Rows are contiguous runs of one thread; find where each starts.
  std::vector<uint32_t> rowBegin(trace.threads.size() + 1, 0);
  for (const CompactEvent& e : events) ++rowBegin[e.thread + 1];
  for (size_t r = 1; r < rowBegin.size(); ++r) rowBegin[r] += rowBegin[r - 1];
  // A row writes only its own slices and reads its original's unmarked ones: rows go to every core.
  parallelItems(trace.threads.size(), [&](size_t, size_t row) {
    uint32_t original = UINT32_MAX;
    for (uint32_t o = 0; o < trace.threads.size(); ++o)
      if (o != row && trace.threads[o].pid == trace.threads[row].pid && trace.threads[o].tid == tid) original = o;
    if (original == UINT32_MAX) return;
    uint32_t at = rowBegin[original];
    const uint32_t last = rowBegin[original + 1];
    for (uint32_t i = rowBegin[row]; i < rowBegin[row + 1]; ++i) {
      CompactEvent& m = events[i];
      if (m.ph != 'X' || !m.isMirror() || m.section != 0) continue;
      const uint32_t k = originalOf(events, m, at, last);
      if (k == last) continue;
      m.section = events[k].section;
      m.colorKey = events[k].colorKey;
      m.flags |= events[k].flags & CompactEvent::kHasHypersection;
    }
  });
}

}  // namespace dfc::profile
