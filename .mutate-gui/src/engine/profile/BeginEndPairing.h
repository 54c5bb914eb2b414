#pragma once
// The one rule that turns B/E (begin/end) events into complete slices; both
// trace readers (profile::Trace and CompactTrace) call it, so a file pairs
// the same way wherever it is opened.
//
// Per row, in time order (file order among equal times):
//  - an E with no name, or named like the innermost open B, closes that B;
//  - an E named like a deeper open B closes that one: others' files cross
//    B/E pairs on a row (B a, B b, E a, E b), and each slice keeps its own
//    span; the slices then overlap without nesting, which the readers keep
//    and the timeline draws a lane deeper (DESIGN §9: our reader tolerates);
//  - an E whose name matches no open B closes the innermost one;
//  - an E with nothing open is dropped;
//  - a B still open when its row ends lasts until the row's last time.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace dfc::profile {

struct BeginEndMark {
  uint32_t row = 0;       // the reader's (pid, tid) key, 0..rowEnds.size()-1
  double ts = 0;          // microseconds
  std::string_view name;  // "" when the event has none (common on E)
  bool begin = true;
};

struct BeginEndPair {
  static constexpr size_t kOpen = std::numeric_limits<size_t>::max();
  size_t begin = 0;    // index into the marks
  size_t end = kOpen;  // index into the marks, or kOpen: ended with its row
  double durUs = 0;
};

// Pairs in closing order, row by row. rowEnds[row] is the latest time seen on
// that row (where an unmatched B ends).
std::vector<BeginEndPair> pairBeginEnd(const std::vector<BeginEndMark>& marks, const std::vector<double>& rowEnds);

}  // namespace dfc::profile
