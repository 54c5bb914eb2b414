#pragma once
// Runs fn(worker, item) for items 0..n-1 on every core (at most 8 threads),
// the calling thread included; items go out one at a time from a shared
// counter, so one big row does not hold back the rest. `worker` (0..threads-1)
// lets a caller keep one accumulator per thread. For the trace readers' and
// indexes' per-row work, where rows are independent.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace dfc::profile {

inline size_t parallelThreads(size_t items) {
  return std::max<size_t>(1, std::min<size_t>({items, std::max(1u, std::thread::hardware_concurrency()), 8}));
}

template <typename Fn>
void parallelItems(size_t n, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&](size_t worker) {
    for (size_t k; (k = next++) < n;) fn(worker, k);
  };
  const size_t threads = parallelThreads(n);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& t : pool) t.join();
}

}  // namespace dfc::profile
