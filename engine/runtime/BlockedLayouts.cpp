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

// Tells the kernels that prefer nChw16c which held values every kernel
// touching them prefers so too; returns how many values are held so.
int planBlocked16(const std::vector<ConvTensors>& convs, const std::vector<bool>& capable,
                  const std::vector<bool>& holdable, ConvAlgoRequest request, int threads) {
  std::vector<bool> prefers(convs.size()), all16 = holdable;
  auto held = [&](ir::ValueId v) { return v != ir::kNoValue && holdable[static_cast<size_t>(v)]; };
  for (size_t i = 0; i < convs.size(); ++i) {
    if (!capable[i]) continue;
    prefers[i] = convs[i].kernel->prefersBlocked16(request, threads);
    for (ir::ValueId v : {convs[i].x, convs[i].skip, convs[i].y})
      if (held(v) && !prefers[i]) all16[static_cast<size_t>(v)] = false;
  }
  auto held16 = [&](ir::ValueId v) { return held(v) && all16[static_cast<size_t>(v)]; };
  int count = 0;
  for (size_t i = 0; i < convs.size(); ++i) {
    if (!prefers[i]) continue;
    const ConvTensors& c = convs[i];
    c.kernel->holdBlocked16(held16(c.x), held16(c.skip), held16(c.y));
    count += held16(c.y) ? 1 : 0;
  }
  return count;
}

}  // namespace

int planBlockedLayouts(const std::vector<ConvTensors>& convs, const std::vector<std::vector<ir::NodeId>>& users,
                       const std::vector<bool>& leavesStep, ConvAlgoRequest request, int threads, int* held16Count) {
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
  const int blocked16 = planBlocked16(convs, capable, holdable, request, threads);
  if (held16Count) *held16Count = blocked16;
  return count;
}

}  // namespace dfc::runtime
