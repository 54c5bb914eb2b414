#include "runtime/BlockedLayouts.h"

#include <map>

namespace dfc::runtime {

int planBlockedLayouts(const std::vector<ConvTensors>& convs, const std::vector<std::vector<ir::NodeId>>& users,
                       const std::vector<bool>& leavesStep, ConvAlgoRequest request, int threads) {
  std::vector<bool> capable(convs.size());
  std::map<ir::ValueId, size_t> reads;  // reads by capable convolutions, as x or as skip
  std::map<ir::ValueId, bool> written;  // written by a capable convolution
  for (size_t i = 0; i < convs.size(); ++i) {
    capable[i] = convs[i].kernel->canHoldBlocked(request, threads);
    if (!capable[i]) continue;
    ++reads[convs[i].x];
    if (convs[i].skip != ir::kNoValue) ++reads[convs[i].skip];
    written[convs[i].y] = true;
  }
  auto blocked = [&](ir::ValueId v) {
    if (v == ir::kNoValue || !written.count(v) || leavesStep[static_cast<size_t>(v)]) return false;
    const auto it = reads.find(v);
    return it != reads.end() && it->second == users[static_cast<size_t>(v)].size();
  };
  int held = 0;
  for (size_t i = 0; i < convs.size(); ++i) {
    if (!capable[i]) continue;
    const ConvTensors& c = convs[i];
    const bool y = blocked(c.y);
    convs[i].kernel->holdBlocked(blocked(c.x), blocked(c.skip), y);
    held += y ? 1 : 0;
  }
  return held;
}

}  // namespace dfc::runtime
