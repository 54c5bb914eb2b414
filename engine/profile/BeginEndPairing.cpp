#include "profile/BeginEndPairing.h"

#include <algorithm>
#include <numeric>

namespace dfc::profile {
namespace {

// The open B an E closes: the innermost one named like it, else the innermost.
size_t closedBy(const std::vector<BeginEndMark>& marks, const std::vector<size_t>& open, std::string_view name) {
  if (!name.empty()) {
    for (size_t k = open.size(); k-- > 0;)
      if (marks[open[k]].name == name) return k;
  }
  return open.size() - 1;
}

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
  std::vector<size_t> open;  // indices of open B marks on the current row, outermost first
  for (size_t i = 0; i < order.size(); ++i) {
    const BeginEndMark& mark = marks[order[i]];
    if (mark.begin) {
      open.push_back(order[i]);
    } else if (!open.empty()) {
      const size_t k = closedBy(marks, open, mark.name);
      pairs.push_back({open[k], order[i], std::max(0.0, mark.ts - marks[open[k]].ts)});
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(k));
    }
    const bool lastOfRow = i + 1 == order.size() || marks[order[i + 1]].row != mark.row;
    if (!lastOfRow) continue;
    const double end = mark.row < rowEnds.size() ? rowEnds[mark.row] : mark.ts;
    for (size_t b : open) pairs.push_back({b, BeginEndPair::kOpen, std::max(0.0, end - marks[b].ts)});
    open.clear();
  }
  return pairs;
}

}  // namespace dfc::profile
