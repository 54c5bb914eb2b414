#include "profile/BeginEndPairing.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace dfc::profile {
namespace {

// The open B marks of one row, found in O(1) amortized per E: a stack of all
// of them (innermost last) and one stack per name, both with lazy deletion: a
// B closed through one stack is skipped when it surfaces on the other. Each
// mark is pushed and popped at most once per stack, so a row of n marks
// pairs in O(n) however deep it nests or however many names it has (the
// scan of the open stack per E was quadratic: a 79 KB .json.gz took minutes).
class OpenMarks {
 public:
  explicit OpenMarks(const std::vector<BeginEndMark>& marks) : m_marks(marks), m_closed(marks.size(), false) {}

  void open(size_t mark) {
    m_all.push_back(mark);
    m_byName[m_marks[mark].name].push_back(mark);
  }

  // The open B an E closes: the innermost one named like it, else the innermost.
  std::optional<size_t> close(std::string_view name) {
    std::optional<size_t> found;
    if (!name.empty())
      if (auto it = m_byName.find(name); it != m_byName.end()) found = popOpen(it->second);
    if (!found) found = popOpen(m_all);
    if (found) m_closed[*found] = true;
    return found;
  }

  // The row ended: what is still open, outermost first.
  std::vector<size_t> takeOpen() {
    std::vector<size_t> out;
    for (size_t mark : m_all)
      if (!m_closed[mark]) out.push_back(mark);
    m_all.clear();
    m_byName.clear();
    return out;
  }

 private:
  std::optional<size_t> popOpen(std::vector<size_t>& stack) {
    while (!stack.empty() && m_closed[stack.back()]) stack.pop_back();
    if (stack.empty()) return std::nullopt;
    const size_t top = stack.back();
    stack.pop_back();
    return top;
  }

  const std::vector<BeginEndMark>& m_marks;
  std::vector<bool> m_closed;
  std::vector<size_t> m_all;  // open (or lazily closed) B marks, outermost first
  std::unordered_map<std::string_view, std::vector<size_t>> m_byName;
};

}  // namespace

std::vector<BeginEndPair> pairBeginEnd(const std::vector<BeginEndMark>& marks, const std::vector<double>& rowEnds) {
  std::vector<size_t> order(marks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (marks[a].row != marks[b].row) return marks[a].row < marks[b].row;
    return marks[a].ts < marks[b].ts;
  });
  std::vector<BeginEndPair> pairs;
  pairs.reserve(marks.size() / 2 + 1);
  OpenMarks open(marks);
  for (size_t i = 0; i < order.size(); ++i) {
    const BeginEndMark& mark = marks[order[i]];
    if (mark.begin) {
      open.open(order[i]);
    } else if (const auto b = open.close(mark.name)) {
      pairs.push_back({*b, order[i], std::max(0.0, mark.ts - marks[*b].ts)});
    }
    const bool lastOfRow = i + 1 == order.size() || marks[order[i + 1]].row != mark.row;
    if (!lastOfRow) continue;
    const double end = mark.row < rowEnds.size() ? rowEnds[mark.row] : mark.ts;
    for (size_t b : open.takeOpen()) pairs.push_back({b, BeginEndPair::kOpen, std::max(0.0, end - marks[b].ts)});
  }
  return pairs;
}

}  // namespace dfc::profile
