#include "runtime/MemoryPlanner.h"

#include <algorithm>
#include <numeric>

namespace dfc::runtime {
namespace {

size_t alignUp(size_t bytes) {
  // Zero-size buffers still get a distinct, valid slot.
  size_t b = std::max<size_t>(bytes, 1);
  return (b + MemoryPlanner::kAlignment - 1) / MemoryPlanner::kAlignment * MemoryPlanner::kAlignment;
}

}  // namespace

MemoryPlanner::Result MemoryPlanner::plan(std::span<const Buffer> buffers) {
  Result result;
  result.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });

  struct Placed {
    size_t offset, size;
    int first, last;
  };
  std::vector<Placed> placed;
  std::vector<std::pair<size_t, size_t>> busy;  // [offset, end) of live-overlapping buffers
  for (size_t i : order) {
    const Buffer& b = buffers[i];
    const size_t size = alignUp(b.bytes);
    busy.clear();
    for (const Placed& p : placed)
      if (p.first <= b.last && b.first <= p.last) busy.emplace_back(p.offset, p.offset + p.size);
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [start, end] : busy) {
      if (start >= offset + size) break;  // the gap before this one fits
      offset = std::max(offset, end);
    }
    placed.push_back({offset, size, b.first, b.last});
    result.offsets[i] = offset;
    result.arenaBytes = std::max(result.arenaBytes, offset + size);
  }
  return result;
}

}  // namespace dfc::runtime
