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

  // Greedy first fit, largest buffers first.
  static Result plan(std::span<const Buffer> buffers);
};

}  // namespace dfc::runtime
