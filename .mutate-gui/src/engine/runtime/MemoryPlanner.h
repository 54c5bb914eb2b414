#pragma once
// Offsets for intermediate buffers in one arena: buffers whose lifetimes
// (inclusive ranges of schedule positions) overlap never share bytes; the
// others may.
#include <cstddef>
#include <span>
#include <vector>

namespace dfc::runtime {

class MemoryPlanner {
 public:
  static constexpr size_t kAlignment = 64;

  struct Buffer {
    size_t bytes = 0;
    int first = 0;  // position of the producer
    int last = 0;   // position of the last use (inclusive)
  };
  struct Result {
    std::vector<size_t> offsets;  // one per buffer, multiples of kAlignment
    size_t arenaBytes = 0;
  };

  // The smaller arena of two plans: best fit in schedule order (n log n) and,
  // up to kGreedyLimit buffers, greedy first fit by size (quadratic, often
  // tighter). A 1024-layer graph's hundred thousand buffers take the first alone.
  static Result plan(std::span<const Buffer> buffers);
  static Result planBestFit(std::span<const Buffer> buffers);
  static Result planGreedyBySize(std::span<const Buffer> buffers);
  static constexpr size_t kGreedyLimit = 4096;
};

}  // namespace dfc::runtime
