#include "support/ThreadPool.h"

#include <algorithm>
#include <exception>

#include "support/LibraryClock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace dfc::support {
namespace {

// Set while a thread runs chunks of some pool's loop: a nested parallelFor runs inline.
thread_local bool t_insideLoop = false;

struct InsideLoop {
  bool previous = t_insideLoop;
  InsideLoop() { t_insideLoop = true; }
  ~InsideLoop() { t_insideLoop = previous; }
};

Status callChunk(void* obj, Status (*call)(void*, int64_t, int64_t), int64_t begin, int64_t end) {
  try {
    return call(obj, begin, end);
  } catch (const std::exception& e) {
    return internalError(std::string("exception in a parallel loop: ") + e.what());
  } catch (...) {
    return internalError("unknown exception in a parallel loop");
  }
}

// Polls `done` until it holds or `limit` has passed; true when it holds.
template <typename Done>
bool spinFor(std::chrono::microseconds limit, Done&& done) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= end) return false;
  }
}

}  // namespace

int ThreadPool::defaultThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

ThreadPool::ThreadPool(int threads, std::chrono::microseconds spin)
    : m_threads(threads > 0 ? threads : defaultThreads()), m_spin(spin) {
  m_workers.reserve(static_cast<size_t>(m_threads - 1));
  m_homes = std::make_unique<Home[]>(static_cast<size_t>(m_threads));
  for (int i = 1; i < m_threads; ++i) m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  for (std::thread& t : m_workers) t.join();
}

Status ThreadPool::runInline(int64_t begin, int64_t end, ChunkFn fn) {
  InsideLoop inside;
  return callChunk(fn.obj, fn.call, begin, end);
}

Status ThreadPool::run(int64_t begin, int64_t end, int64_t grain, ChunkFn fn) {
  if (end <= begin) return {};
  const int64_t size = end - begin;
  grain = std::max<int64_t>(grain, 1);
  if (m_threads == 1 || size <= grain || t_insideLoop) return runInline(begin, end, fn);
  std::unique_lock submit(m_submit, std::try_to_lock);
  if (!submit.owns_lock()) return runInline(begin, end, fn);

  const int chunks = static_cast<int>(std::min<int64_t>(size / grain, int64_t{kChunksPerThread} * m_threads));
  if (chunks <= 1) return runInline(begin, end, fn);
  Job job;
  job.fn = fn;
  job.begin = begin;
  job.size = size;
  job.chunks = chunks;
  job.libraryClock = libraryClockSink();
  job.homesOnly = m_homesOnly;
  {
    std::lock_guard lock(m_mutex);
    for (int t = 0; t < m_threads; ++t) {
      m_homes[t].next.store(chunks * t / m_threads);
      m_homes[t].end = chunks * (t + 1) / m_threads;
    }
    m_job = &job;
    ++m_generation;
  }
  m_wake.notify_all();
  workOn(job, 0);
  spinFor(m_spin, [&] { return job.done.load() == job.chunks && m_busy.load() == 0; });
  std::unique_lock lock(m_mutex);
  // The job lives on this stack: wait until every chunk is done and no worker still holds it.
  m_idle.wait(lock, [&] { return job.done.load() == job.chunks && m_busy == 0; });
  m_job = nullptr;
  if (job.errorChunk >= 0) return job.error;
  return {};
}

// Thread `self` takes the chunks of its home range first, then those left in
// the others' ranges. Home ranges are the same for every loop of a chunk
// count, so a loop over channels reads, on each thread, the channels the loop
// before it wrote there (in that core's cache): with chunks taken in one
// shared order, MobileNetV2's 14x14 depthwise convs ran slower on 2 threads
// (52 us) than on 1 (33 us), reading the other core's half.
void ThreadPool::workOn(Job& job, int self) {
  InsideLoop inside;
  LibraryClockScope clock(job.libraryClock);
  for (int k = 0; k < (job.homesOnly ? 1 : m_threads); ++k) {
    Home& home = m_homes[(self + k) % m_threads];
    for (int c = home.next.fetch_add(1); c < home.end; c = home.next.fetch_add(1)) runChunk(job, c);
  }
}

void ThreadPool::runChunk(Job& job, int c) {
  const int64_t b = job.begin + job.size * c / job.chunks, e = job.begin + job.size * (c + 1) / job.chunks;
  Status st = callChunk(job.fn.obj, job.fn.call, b, e);
  std::lock_guard lock(m_mutex);
  if (!st && (job.errorChunk < 0 || c < job.errorChunk)) {
    job.errorChunk = c;
    job.error = st.error();
  }
  if (job.done.fetch_add(1) + 1 == job.chunks) m_idle.notify_all();
}

void ThreadPool::workerLoop(int self) {
  uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    spinFor(m_spin, [&] { return m_generation.load() != seen; });  // the next loop of the step, most often
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stop || (m_job && m_generation != seen); });
      if (m_stop) return;
      seen = m_generation;
      job = m_job;
      ++m_busy;
    }
    workOn(*job, self);
    {
      std::lock_guard lock(m_mutex);
      --m_busy;
    }
    m_idle.notify_all();
  }
}

}  // namespace dfc::support
