#pragma once
// Finding a time on one row of a CompactTrace (events sorted by start within
// a row), starting from a place already reached: galloping, since a mirror
// row's next slice is usually a few slices further on the row it copies.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "profile/CompactTrace.h"

namespace dfc::profile {

// The first index in [from, last) whose start is >= ts.
inline uint32_t firstAtOrAfter(const std::vector<CompactEvent>& events, uint32_t from, uint32_t last, double ts) {
  uint32_t step = 1, lo = from;
  while (lo + step < last && events[lo + step].ts < ts) {
    lo += step;
    step *= 2;
  }
  auto it = std::partition_point(events.begin() + lo, events.begin() + std::min<size_t>(last, size_t{lo} + step + 1),
                                 [&](const CompactEvent& e) { return e.ts < ts; });
  return static_cast<uint32_t>(it - events.begin());
}

// The unmarked slice on [first, last) that a mirror copies (same start,
// duration and name), searched from `at` (moved forward); last if none.
inline uint32_t originalOf(const std::vector<CompactEvent>& events, const CompactEvent& m, uint32_t& at, uint32_t last) {
  at = firstAtOrAfter(events, at, last, m.ts);
  for (uint32_t k = at; k < last && events[k].ts == m.ts; ++k)
    if (events[k].ph == 'X' && !events[k].isMirror() && events[k].dur == m.dur && events[k].name == m.name) return k;
  return last;
}

}  // namespace dfc::profile
