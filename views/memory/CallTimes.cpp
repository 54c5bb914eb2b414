#include "memory/CallTimes.h"

#include <algorithm>
#include <charconv>

namespace dfc::views {
namespace {

struct SectionSlice {
  double ts = 0, end = 0;
  int section = -1;
};

// Section slices ("3 conv1" keys) in time order.
std::vector<SectionSlice> sectionSlices(const profile::CompactTrace& trace) {
  std::vector<SectionSlice> out;
  for (const profile::CompactEvent& e : trace.events) {
    if (e.section == 0 || e.isMirror() || e.ph != 'X') continue;
    const std::string_view key = trace.string(e.section);
    int id = -1;
    if (std::from_chars(key.data(), key.data() + key.size(), id).ec != std::errc()) continue;
    out.push_back({e.ts, e.ts + e.dur, id});
  }
  std::sort(out.begin(), out.end(), [](const SectionSlice& a, const SectionSlice& b) { return a.ts < b.ts; });
  return out;
}

}  // namespace

std::optional<TimeRange> callsTimeRange(const profile::CompactTrace& trace, const std::vector<int>& callSections,
                                        int first, int last) {
  if (first < 0 || last < first || last >= static_cast<int>(callSections.size())) return std::nullopt;
  std::optional<TimeRange> range;
  size_t call = 0;
  for (const SectionSlice& s : sectionSlices(trace)) {
    if (s.section != callSections[call]) {
      // The step starts over (an evaluation step, another epoch): match from its first call again.
      call = s.section == callSections[0] ? 0 : call;
      if (s.section != callSections[call]) continue;
      range.reset();
    }
    if (static_cast<int>(call) == first) range = TimeRange{s.ts, s.end};
    if (static_cast<int>(call) == last && range) {
      range->endUs = s.end;
      return range;
    }
    ++call;
    if (call == callSections.size()) call = 0, range.reset();
  }
  return std::nullopt;
}

}  // namespace dfc::views
