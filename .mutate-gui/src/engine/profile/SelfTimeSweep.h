#pragma once
// Self time on one row, in one pass with the nesting stack (TraceIndex.h's
// rule: a slice's parent is the innermost open slice at its start). A
// slice's self time is the time it is the deepest slice running on its row.
// With proper nesting that is its duration minus its children's; others'
// files cross slices (a child that outlives its parent), and there "minus
// the children" would count the child's overhang twice, so the sweep gives
// every moment of a busy row to exactly one slice: the self times of a row
// add up to its busy time, and a group's can never exceed its wall.
//
// Slices are pushed in start order (longer first on equal starts). Every
// slice on the stack sits one deeper than the one below it, so the deepest
// running slice is the topmost one not yet ended.
#include <cstdint>
#include <limits>
#include <vector>

#include "profile/CompactTrace.h"

namespace dfc::profile {

class SelfTimeSweep {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  explicit SelfTimeSweep(const std::vector<CompactEvent>& events) : m_events(events) {}

  void reset() {
    m_stack.clear();
    m_started = false;
  }

  // Moves time forward to `t`, calling attribute(event, from, to) for each
  // stretch the deepest running slice had; slices ended by `t` leave the
  // stack (a slice ending exactly at `t` has ended).
  template <typename Attribute>
  void advance(double t, Attribute&& attribute) {
    if (!m_started) {
      m_cursor = t;
      m_started = true;
    }
    while (!m_stack.empty()) {
      const uint32_t top = m_stack.back();
      const double end = m_events[top].ts + m_events[top].dur;
      if (end <= m_cursor) {
        m_stack.pop_back();
        continue;
      }
      const double until = end < t ? end : t;
      attribute(top, m_cursor, until);
      m_cursor = until;
      if (end > t) break;
      m_stack.pop_back();
    }
    if (t > m_cursor) m_cursor = t;
  }

  // After advance(ts of `event`): its parent and depth, then it opens.
  uint32_t parent() const { return m_stack.empty() ? kNone : m_stack.back(); }
  size_t depth() const { return m_stack.size(); }
  void push(uint32_t event) { m_stack.push_back(event); }

 private:
  const std::vector<CompactEvent>& m_events;
  std::vector<uint32_t> m_stack;
  double m_cursor = 0;
  bool m_started = false;
};

}  // namespace dfc::profile
