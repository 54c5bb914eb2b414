// The memory planner's two plans: best fit in schedule order (n log n, what a
// 1024-layer graph gets) and greedy by size (quadratic, only up to
// kGreedyLimit buffers); plan() keeps the smaller arena. Hand-worked offsets.
#include <catch2/catch.hpp>

#include <random>

#include "runtime/MemoryPlanner.h"

using dfc::runtime::MemoryPlanner;
using Buffers = std::vector<MemoryPlanner::Buffer>;

namespace {

// No two buffers live at one position share a byte; every offset aligned.
void checkValid(const Buffers& bufs, const MemoryPlanner::Result& plan) {
  REQUIRE(plan.offsets.size() == bufs.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    CHECK(plan.offsets[i] % MemoryPlanner::kAlignment == 0);
    CHECK(plan.offsets[i] + std::max<size_t>(bufs[i].bytes, 1) <= plan.arenaBytes);
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      const bool together = bufs[i].first <= bufs[j].last && bufs[j].first <= bufs[i].last;
      const bool share = plan.offsets[i] < plan.offsets[j] + std::max<size_t>(bufs[j].bytes, 1) &&
                         plan.offsets[j] < plan.offsets[i] + std::max<size_t>(bufs[i].bytes, 1);
      if (together && share) FAIL("buffers " << i << " and " << j << " overlap");
    }
  }
}

}  // namespace

TEST_CASE("best fit frees a buffer after its last position, not at it", "[memory]") {
  // Lifetimes are inclusive: a buffer whose first position is another's last is live with it.
  Buffers touching{{64, 0, 2}, {64, 2, 3}};
  auto r = MemoryPlanner::planBestFit(touching);
  CHECK(r.offsets == std::vector<size_t>{0, 64});
  CHECK(r.arenaBytes == 128);
  Buffers after{{64, 0, 2}, {64, 3, 4}};
  r = MemoryPlanner::planBestFit(after);
  CHECK(r.offsets == std::vector<size_t>{0, 0});
  CHECK(r.arenaBytes == 64);
}

TEST_CASE("best fit takes the smallest free range that holds a buffer", "[memory]") {
  // At position 0: A 256 B at 0, X 64 B at 256, B 64 B at 320, C 64 B at 384 (larger first, then index order).
  // At position 2, A and B are free: holes [0, 256) and [320, 384), not adjacent (X lies between).
  // E 128 B (larger first) takes the 256 B hole, the only one that holds it; D 64 B the 64 B hole (the smallest
  // that fits, not the first); F 320 B at position 3 fits no hole and goes on top.
  Buffers bufs{{256, 0, 1}, {64, 0, 5}, {64, 0, 1}, {64, 0, 5}, {64, 2, 5}, {128, 2, 5}, {320, 3, 5}};
  auto r = MemoryPlanner::planBestFit(bufs);
  CHECK(r.offsets == std::vector<size_t>{0, 256, 320, 384, 320, 0, 448});
  CHECK(r.arenaBytes == 768);
  checkValid(bufs, r);
}

TEST_CASE("a free range at the top grows into the new buffer instead of leaving a hole", "[memory]") {
  // A 128 B at 0, B 64 B at 128; B ends at position 0, so at position 1 its range [128, 192) touches the top:
  // C starts there and the arena is 128 + 512, not 192 + 512.
  Buffers bufs{{128, 0, 3}, {64, 0, 0}, {512, 1, 2}};
  auto r = MemoryPlanner::planBestFit(bufs);
  CHECK(r.offsets == std::vector<size_t>{0, 128, 128});
  CHECK(r.arenaBytes == 640);
}

TEST_CASE("plan keeps the smaller of the two plans, and best fit alone past the greedy limit", "[memory]") {
  // Greedy by size packs this better: the 1 KiB buffer first at 0, the long-lived one above it (1088 B);
  // best fit in schedule order put the two small ones first, the 1 KiB one above them (1152 B).
  Buffers bufs{{64, 0, 0}, {64, 0, 2}, {1024, 1, 1}, {64, 2, 2}};
  CHECK(MemoryPlanner::planGreedyBySize(bufs).arenaBytes == 1088);
  CHECK(MemoryPlanner::planBestFit(bufs).arenaBytes == 1152);
  auto chosen = MemoryPlanner::plan(bufs);
  CHECK(chosen.arenaBytes == 1088);
  checkValid(bufs, chosen);
  // kGreedyLimit buffers exactly: both plans are made; one more: best fit alone (the same as planBestFit).
  std::mt19937 rng(7);
  for (size_t count : {MemoryPlanner::kGreedyLimit, MemoryPlanner::kGreedyLimit + 1}) {
    Buffers many;
    for (size_t i = 0; i < count; ++i) {
      const int first = static_cast<int>(rng() % 2000);
      many.push_back({64 + rng() % 4096, first, first + static_cast<int>(rng() % 40)});
    }
    auto plan = MemoryPlanner::plan(many);
    auto alone = MemoryPlanner::planBestFit(many);
    if (count > MemoryPlanner::kGreedyLimit) CHECK(plan.offsets == alone.offsets);
    else CHECK(plan.arenaBytes == std::min(alone.arenaBytes, MemoryPlanner::planGreedyBySize(many).arenaBytes));
    checkValid(many, plan);
  }
}

TEST_CASE("both plans are valid on random lifetimes, zero-size buffers included", "[memory]") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    Buffers bufs;
    const int count = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < count; ++i) {
      const int first = static_cast<int>(rng() % 25);
      bufs.push_back({rng() % 7 == 0 ? 0 : rng() % 5000, first, first + static_cast<int>(rng() % 8)});
    }
    INFO("trial " << trial);
    checkValid(bufs, MemoryPlanner::planBestFit(bufs));
    checkValid(bufs, MemoryPlanner::planGreedyBySize(bufs));
  }
}
