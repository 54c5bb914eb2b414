#include "runtime/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <set>

namespace dfc::runtime {
namespace {

size_t alignUp(size_t bytes) {
  // Zero-size buffers still get a distinct, valid slot.
  size_t b = std::max<size_t>(bytes, 1);
  return (b + MemoryPlanner::kAlignment - 1) / MemoryPlanner::kAlignment * MemoryPlanner::kAlignment;
}

// Free byte ranges of the arena below its top, by offset (to merge neighbours)
// and by size (to find the smallest that fits).
class FreeList {
 public:
  // The smallest free range that holds `size`, or the end of the arena (the
  // free range touching the top grows into it); returns the offset taken.
  size_t take(size_t size) {
    auto fit = m_bySize.lower_bound({size, 0});
    if (fit != m_bySize.end()) return takeFrom(fit->second, size);
    if (!m_byOffset.empty()) {
      auto last = std::prev(m_byOffset.end());
      if (last->first + last->second == m_top) {
        size_t offset = last->first;
        erase(last->first, last->second);
        m_top = offset + size;
        return offset;
      }
    }
    m_top += size;
    return m_top - size;
  }

  void give(size_t offset, size_t size) {
    auto next = m_byOffset.lower_bound(offset);
    if (next != m_byOffset.end() && next->first == offset + size) {
      size += next->second;
      erase(next->first, next->second);
    }
    auto prev = m_byOffset.lower_bound(offset);
    if (prev != m_byOffset.begin() && (--prev)->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      erase(prev->first, prev->second);
    }
    m_byOffset[offset] = size;
    m_bySize.insert({size, offset});
  }

  size_t top() const { return m_top; }

 private:
  size_t takeFrom(size_t offset, size_t size) {
    const size_t have = m_byOffset.at(offset);
    erase(offset, have);
    if (have > size) give(offset + size, have - size);
    return offset;
  }
  void erase(size_t offset, size_t size) {
    m_byOffset.erase(offset);
    m_bySize.erase({size, offset});
  }
  std::map<size_t, size_t> m_byOffset;          // offset -> size
  std::set<std::pair<size_t, size_t>> m_bySize;  // (size, offset)
  size_t m_top = 0;
};

}  // namespace

// Buffers in order of their first position (larger first among equals); those
// whose last use lies before that position are freed first, so buffers that
// share bytes never overlap in time. O(n log n).
MemoryPlanner::Result MemoryPlanner::planBestFit(std::span<const Buffer> buffers) {
  Result result;
  result.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
    return buffers[a].bytes > buffers[b].bytes;
  });
  using Live = std::pair<int, size_t>;  // (last position, buffer)
  std::priority_queue<Live, std::vector<Live>, std::greater<>> live;
  FreeList free;
  for (size_t i : order) {
    for (; !live.empty() && live.top().first < buffers[i].first; live.pop()) {
      const size_t done = live.top().second;
      free.give(result.offsets[done], alignUp(buffers[done].bytes));
    }
    result.offsets[i] = free.take(alignUp(buffers[i].bytes));
    live.push({buffers[i].last, i});
  }
  result.arenaBytes = free.top();
  return result;
}

// Largest buffers first, each at the lowest offset clear of every placed
// buffer it overlaps in time. O(n^2): the scan of placed buffers.
MemoryPlanner::Result MemoryPlanner::planGreedyBySize(std::span<const Buffer> buffers) {
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

MemoryPlanner::Result MemoryPlanner::plan(std::span<const Buffer> buffers) {
  Result bestFit = planBestFit(buffers);
  if (buffers.size() > kGreedyLimit) return bestFit;
  Result greedy = planGreedyBySize(buffers);
  return greedy.arenaBytes <= bestFit.arenaBytes ? greedy : bestFit;
}

}  // namespace dfc::runtime
