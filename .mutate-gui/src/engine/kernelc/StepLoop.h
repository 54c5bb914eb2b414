#pragma once
// One graph per task over the thread pool, with the step's progress reported
// once per graph done (serialized, from whichever thread finished it). Each
// graph's result depends on it alone: the same for any thread count.
#include <mutex>

#include "kernelc/LinkSteps.h"
#include "support/ThreadPool.h"

namespace dfc::kernelc {

template <typename Fn>
Status forEachGraph(int threads, size_t count, const StepProgress& progress, Fn&& perGraph) {
  std::mutex mutex;
  size_t done = 0;
  support::ThreadPool pool(threads);
  return pool.parallelFor(0, static_cast<int64_t>(count), 1, [&](int64_t b, int64_t e) -> Status {
    for (int64_t i = b; i < e; ++i) {
      DFC_TRY(perGraph(static_cast<size_t>(i)));
      std::lock_guard lock(mutex);
      ++done;
      if (progress) progress(static_cast<double>(done) / static_cast<double>(count));
    }
    return {};
  });
}

}  // namespace dfc::kernelc
