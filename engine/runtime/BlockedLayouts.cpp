#include "runtime/BlockedLayouts.h"

#include <map>

namespace dfc::runtime {
namespace {

// Which values the capable kernels could hold: written by one, read only by
// them (as x or skip) and not leaving the step.
std::vector<bool> holdableValues(const std::vector<ConvTensors>& convs, const std::vector<bool>& capable,
                                 const std::vector<std::vector<ir::NodeId>>& users,
                                 const std::vector<bool>& leavesStep) {
  std::map<ir::ValueId, size_t> reads;  // reads by capable kernels, as x or as skip
  std::vector<bool> written(users.size()), holdable(users.size());
  for (size_t i = 0; i < convs.size(); ++i) {
    if (!capable[i]) continue;
    ++reads[convs[i].x];
    if (convs[i].skip != ir::kNoValue) ++reads[convs[i].skip];
    written[static_cast<size_t>(convs[i].y)] = true;
  }
  for (const auto& [v, count] : reads) {
    const auto at = static_cast<size_t>(v);
    holdable[at] = written[at] && !leavesStep[at] && count == users[at].size();
  }
  return holdable;
}

}  // namespace

int planBlockedLayouts(const std::vector<ConvTensors>& convs, const std::vector<std::vector<ir::NodeId>>& users,
                       const std::vector<bool>& leavesStep, ConvAlgoRequest request, int threads) {
  std::vector<bool> capable(convs.size());
  for (size_t i = 0; i < convs.size(); ++i) capable[i] = convs[i].kernel->canHoldBlocked(request, threads);
  // A tied kernel that could hold only one side holds neither: drop it, and
  // look again at the values it touched.
  std::vector<bool> holdable;
  for (bool changed = true; changed;) {
    holdable = holdableValues(convs, capable, users, leavesStep);
    changed = false;
    for (size_t i = 0; i < convs.size(); ++i)
      if (capable[i] && convs[i].tied &&
          holdable[static_cast<size_t>(convs[i].x)] != holdable[static_cast<size_t>(convs[i].y)])
        capable[i] = false, changed = true;
  }
  auto held = [&](ir::ValueId v) { return v != ir::kNoValue && holdable[static_cast<size_t>(v)]; };
  int count = 0;
  for (size_t i = 0; i < convs.size(); ++i) {
    if (!capable[i]) continue;
    const ConvTensors& c = convs[i];
    convs[i].kernel->holdBlocked(held(c.x), held(c.skip), held(c.y));
    count += held(c.y) ? 1 : 0;
  }
  return count;
}

}  // namespace dfc::runtime
