#pragma once
// A fixed pool of worker threads for data-parallel loops. The thread that
// calls parallelFor works too, so a pool of N threads starts N - 1 workers.
// A worker that finishes a loop watches for the next one for kSpin before it
// sleeps on a condition variable, and the caller watches for the last chunk
// the same way: a training step's loops come back to back, and waking a
// sleeping thread costs tens of microseconds, more than many loops take.
// kSpin is 2 ms because a step has serial stretches that long (a convolution
// over one input channel, the loss) between parallel loops: with 100 us a
// LeNet b32 step on 2 threads lost to 1 thread (x0.91-0.96) waking workers;
// libgomp's default spin before sleeping is of the same order.
// Nothing else runs threads beside the pool (the runtime's GEMMs split over it
// too), so the spin takes no core anyone else was given.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/Error.h"

namespace dfc::support {

class ThreadPool {
 public:
  // threads <= 0: defaultThreads(); spin: how long idle threads watch for work before they sleep.
  explicit ThreadPool(int threads = 0, std::chrono::microseconds spin = kSpin);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  static constexpr int kChunksPerThread = 8;
  static constexpr std::chrono::microseconds kSpin{2000};

  int threads() const { return m_threads; }
  // The machine's hardware threads, at least 1.
  static int defaultThreads();

  // Calls fn(chunkBegin, chunkEnd) over contiguous chunks covering [begin, end)
  // exactly once, each chunk at least `grain` long, at most kChunksPerThread
  // chunks per thread. Thread t (the caller is 0) first takes the chunks of
  // its home range, [chunks * t / threads, chunks * (t + 1) / threads), then
  // any left in the others', so one that is late or descheduled holds back
  // little. fn returns void or Status. Runs inline as one call fn(begin, end)
  // when the range is shorter than two grains, the pool has one thread, or
  // the call is nested in another parallelFor (of any pool) or meets the pool
  // busy with another caller: nesting never deadlocks. Returns the error of the
  // lowest failing chunk; an exception thrown by fn becomes an internal error.
  // While set, each thread runs exactly its home range and takes none of the
  // others' chunks, waiting for a late one. A warm-up step run so has every
  // thread run its share of every loop once, growing its scratch (kernels'
  // thread-local buffers, oneDNN's per-thread state) then, so later steps
  // allocate nothing whichever thread takes which chunk.
  void setHomesOnly(bool on) { m_homesOnly = on; }

  template <typename Fn>
  Status parallelFor(int64_t begin, int64_t end, int64_t grain, Fn&& fn) {
    auto call = [](void* obj, int64_t b, int64_t e) -> Status {
      Fn& f = *static_cast<std::remove_reference_t<Fn>*>(obj);
      if constexpr (std::is_void_v<decltype(f(b, e))>) {
        f(b, e);
        return {};
      } else {
        return f(b, e);
      }
    };
    return run(begin, end, grain, ChunkFn{const_cast<void*>(static_cast<const void*>(&fn)), call});
  }

 private:
  struct ChunkFn {
    void* obj;
    Status (*call)(void*, int64_t, int64_t);
  };
  struct Job {
    ChunkFn fn;
    int64_t begin = 0, size = 0;
    int chunks = 0;
    bool homesOnly = false;  // setHomesOnly when the job was posted
    std::atomic<int> done{0};
    int errorChunk = -1;  // lowest failing chunk, guarded by m_mutex
    std::atomic<int64_t>* libraryClock = nullptr;  // the caller's (LibraryClock.h), for the workers
    Error error;
  };

  Status run(int64_t begin, int64_t end, int64_t grain, ChunkFn fn);
  Status runInline(int64_t begin, int64_t end, ChunkFn fn);
  // A thread's home range of chunks in the current job, on its own cache line.
  struct alignas(64) Home {
    std::atomic<int> next{0};
    int end = 0;
  };

  void workOn(Job& job, int self);
  void runChunk(Job& job, int c);
  void workerLoop(int self);

  int m_threads = 1;
  std::chrono::microseconds m_spin;
  std::vector<std::thread> m_workers;
  std::unique_ptr<Home[]> m_homes;  // one per thread, set under m_mutex before a job is posted
  bool m_homesOnly = false;         // the caller's: copied into each job
  std::mutex m_submit;  // one caller at a time; a second caller runs inline
  std::mutex m_mutex;
  std::condition_variable m_wake;  // workers: a job was posted, or stop
  std::condition_variable m_idle;  // caller: a chunk finished or a worker left the job
  Job* m_job = nullptr;            // guarded by m_mutex
  std::atomic<uint64_t> m_generation{0};  // written under m_mutex, read by spinning workers without it
  std::atomic<int> m_busy{0};             // workers inside m_job, written under m_mutex
  bool m_stop = false;             // guarded by m_mutex
};

}  // namespace dfc::support
