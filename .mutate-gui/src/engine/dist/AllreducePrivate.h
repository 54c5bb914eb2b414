#pragma once
// Pieces the allreduce algorithms share (dist/ only): tags, shard bounds and
// timing a phase into the log.
#include <chrono>

#include "dist/Allreduce.h"

namespace dfc::dist::detail {

// One tag per phase, so the messages of different phases between one pair of ranks never match each other.
enum Tag : int {
  kTagRingReduceScatter = 11,
  kTagRingAllGather = 12,
  kTagHostReduceScatter = 21,
  kTagHostAllGather = 22,
  kTagTreeReduce = 41,     // + tree (0 or 1)
  kTagTreeBroadcast = 51,  // + tree
};

// Part i of `parts` of n elements: [n*i/parts, n*(i+1)/parts), sizes differ by at most one.
inline size_t shardBegin(size_t n, int parts, int i) {
  return n / static_cast<size_t>(parts) * static_cast<size_t>(i) +
         n % static_cast<size_t>(parts) * static_cast<size_t>(i) / static_cast<size_t>(parts);
}

// Runs `body` and logs it as phase `name` (when `log` is given).
template <typename Body>
Status timedPhase(PhaseLog* log, const char* name, Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  Status st = body();
  if (log && st) log->push_back({name, start, std::chrono::steady_clock::now()});
  return st;
}

}  // namespace dfc::dist::detail
