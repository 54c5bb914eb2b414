// The runtime's thread pool: coverage, chunking, inline runs, nesting, errors.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/LibraryClock.h"
#include "support/ThreadPool.h"

using dfc::Status;
using dfc::support::ThreadPool;

namespace {

struct Chunk {
  int64_t begin, end;
  std::thread::id thread;
};

// Records every chunk a parallelFor makes and counts every index it visits.
struct Recorder {
  explicit Recorder(int64_t size) : hits(static_cast<size_t>(size)) {}
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::vector<Chunk> chunks;

  void visit(int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard lock(mutex);
    chunks.push_back({b, e, std::this_thread::get_id()});
  }
  bool eachOnce() const {
    for (const auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("parallelFor visits every index exactly once, in chunks of at least the grain", "[threadpool]") {
  ThreadPool pool(4);
  REQUIRE(pool.threads() == 4);
  for (int64_t size : {int64_t{5000}, int64_t{100003}, int64_t{1} << 20}) {
    Recorder r(size);
    REQUIRE(pool.parallelFor(0, size, 1000, [&](int64_t b, int64_t e) { r.visit(b, e); }).ok());
    INFO("size " << size);
    CHECK(r.eachOnce());
    CHECK(r.chunks.size() > 1);
    CHECK(r.chunks.size() <= static_cast<size_t>(4 * ThreadPool::kChunksPerThread));
    for (const Chunk& c : r.chunks) CHECK(c.end - c.begin >= 1000);
  }
  // An offset range: only [begin, end) is visited.
  Recorder r(300);
  REQUIRE(pool.parallelFor(100, 300, 10, [&](int64_t b, int64_t e) { r.visit(b, e); }).ok());
  for (int64_t i = 0; i < 300; ++i) CHECK(r.hits[static_cast<size_t>(i)].load() == (i >= 100 ? 1 : 0));
}

TEST_CASE("parallelFor runs small ranges and one-thread pools inline, as one call", "[threadpool]") {
  ThreadPool pool(4);
  Recorder small(1000);
  REQUIRE(pool.parallelFor(0, 1000, 600, [&](int64_t b, int64_t e) { small.visit(b, e); }).ok());  // < two grains
  REQUIRE(small.chunks.size() == 1);
  CHECK(small.chunks[0].begin == 0);
  CHECK(small.chunks[0].end == 1000);
  CHECK(small.chunks[0].thread == std::this_thread::get_id());

  ThreadPool single(1);
  Recorder big(1 << 16);
  REQUIRE(single.parallelFor(0, 1 << 16, 1, [&](int64_t b, int64_t e) { big.visit(b, e); }).ok());
  REQUIRE(big.chunks.size() == 1);
  CHECK(big.chunks[0].thread == std::this_thread::get_id());

  int calls = 0;
  REQUIRE(pool.parallelFor(5, 5, 1, [&](int64_t, int64_t) { ++calls; }).ok());
  CHECK(calls == 0);
}

TEST_CASE("a parallelFor nested in another runs inline and does not deadlock", "[threadpool]") {
  ThreadPool pool(3);
  const int64_t rows = 64, cols = 4096;
  Recorder r(rows * cols);
  std::atomic<int> innerCalls{0};
  Status st = pool.parallelFor(0, rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      Status inner = pool.parallelFor(row * cols, (row + 1) * cols, 16, [&](int64_t b, int64_t e) {
        innerCalls.fetch_add(1);
        r.visit(b, e);
      });
      if (!inner) return inner;
    }
    return Status{};
  });
  REQUIRE(st.ok());
  CHECK(r.eachOnce());
  CHECK(innerCalls.load() == rows);  // one inline call per row

  // Another pool's loop inside this one's runs inline as well.
  ThreadPool other(2);
  std::atomic<int> otherCalls{0};
  REQUIRE(pool.parallelFor(0, 8, 1, [&](int64_t, int64_t) {
                return other.parallelFor(0, 1 << 16, 1, [&](int64_t, int64_t) { otherCalls.fetch_add(1); });
              }).ok());
  CHECK(otherCalls.load() >= 2);  // one per outer chunk
  CHECK(otherCalls.load() <= 8);
}

TEST_CASE("errors and exceptions from chunks come back as a Status, the lowest failing chunk wins", "[threadpool]") {
  ThreadPool pool(4);
  Status st = pool.parallelFor(0, 1000, 10, [&](int64_t b, int64_t e) -> Status {
    if (b <= 700 && 700 < e) return dfc::makeError("bad index 700");
    if (b <= 900 && 900 < e) return dfc::makeError("bad index 900");
    return {};
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message() == "bad index 700");

  Status thrown = pool.parallelFor(0, 1000, 10, [&](int64_t b, int64_t e) {
    if (b <= 500 && 500 < e) throw std::runtime_error("boom");
  });
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.error().kind() == dfc::ErrorKind::Internal);
  CHECK_THAT(thrown.error().message(), Catch::Contains("boom"));

  // The pool still works after a failed loop.
  Recorder r(5000);
  REQUIRE(pool.parallelFor(0, 5000, 100, [&](int64_t b, int64_t e) { r.visit(b, e); }).ok());
  CHECK(r.eachOnce());
}

TEST_CASE("two threads sharing a pool both finish their loops", "[threadpool]") {
  ThreadPool pool(2);
  Recorder a(10000), b(10000);
  std::atomic<bool> otherOk{true};  // Catch2 assertions stay on the test's thread
  std::thread other([&] {
    for (int i = 0; i < 20; ++i)
      if (!pool.parallelFor(0, 10000, 100, [&](int64_t lo, int64_t hi) { a.visit(lo, hi); }).ok()) otherOk = false;
  });
  for (int i = 0; i < 20; ++i) REQUIRE(pool.parallelFor(0, 10000, 100, [&](int64_t lo, int64_t hi) { b.visit(lo, hi); }).ok());
  other.join();
  CHECK(otherOk.load());
  bool all20 = true;
  for (size_t i = 0; i < 10000; ++i) all20 = all20 && a.hits[i].load() == 20 && b.hits[i].load() == 20;
  CHECK(all20);
}

TEST_CASE("the default size is the machine's hardware threads", "[threadpool]") {
  ThreadPool pool;
  CHECK(pool.threads() == ThreadPool::defaultThreads());
  CHECK(ThreadPool::defaultThreads() >= 1);
}

TEST_CASE("every chunk of a loop sees its caller's library clock, and the workers keep none after", "[threadpool]") {
  ThreadPool pool(3);
  std::atomic<int64_t> clock{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  std::vector<std::atomic<int64_t>*> seen;
  auto record = [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // let the workers take chunks too
    std::lock_guard lock(m);
    threads.insert(std::this_thread::get_id());
    seen.push_back(dfc::support::libraryClockSink());
  };
  {
    const dfc::support::LibraryClockScope scope(&clock);
    REQUIRE(pool.parallelFor(0, 64, 1, record).ok());
  }
  CHECK(threads.size() > 1);
  for (std::atomic<int64_t>* sink : seen) CHECK(sink == &clock);
  CHECK(dfc::support::libraryClockSink() == nullptr);
  seen.clear();
  REQUIRE(pool.parallelFor(0, 64, 1, record).ok());  // a caller without a clock
  for (std::atomic<int64_t>* sink : seen) CHECK(sink == nullptr);
}

namespace {

// Waits until `flag` is set, at most 10 s (a broken pool fails instead of hanging); true when it was set.
bool awaitFlag(const std::atomic<bool>& flag) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load())
    if (std::chrono::steady_clock::now() > end) return false;
  return true;
}

}  // namespace

TEST_CASE("each thread starts on its home range of chunks, and the others take what it leaves", "[threadpool]") {
  // 2 threads, 16 chunks of 1: the caller's home is chunks 0-7, the worker's 8-15.
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> callerStarted{false}, workerStarted{false}, timedOut{false};
  // Each thread's first chunk waits until the other thread has begun one, so
  // neither can run out of its own range before the other starts.
  const auto meet = [&](bool byCaller) {
    (byCaller ? callerStarted : workerStarted) = true;
    if (!awaitFlag(byCaller ? workerStarted : callerStarted)) timedOut = true;
  };
  SECTION("first chunks") {
    std::mutex mutex;
    std::vector<int64_t> callerOrder, workerOrder;
    const auto record = [&](int64_t b, int64_t) {
      const bool byCaller = std::this_thread::get_id() == caller;
      meet(byCaller);
      std::lock_guard lock(mutex);
      (byCaller ? callerOrder : workerOrder).push_back(b);
    };
    REQUIRE(pool.parallelFor(0, 16, 1, record).ok());
    REQUIRE_FALSE(timedOut.load());
    REQUIRE(!callerOrder.empty());
    REQUIRE(!workerOrder.empty());
    CHECK(callerOrder.front() == 0);
    CHECK(workerOrder.front() == 8);
    CHECK(callerOrder.size() + workerOrder.size() == 16);
  }
  SECTION("a thread that is held up has its range taken") {
    // The worker's first chunk then waits until the caller has run chunk 15,
    // the last of the worker's home: the caller must take it.
    std::atomic<bool> lastDone{false};
    std::atomic<int> byCaller{0};
    const auto holdUpWorker = [&](int64_t b, int64_t) {
      if (std::this_thread::get_id() == caller) {
        if (byCaller++ == 0) meet(true);
        if (b == 15) lastDone = true;
      } else {
        workerStarted = true;
        if (!awaitFlag(lastDone)) timedOut = true;
      }
    };
    REQUIRE(pool.parallelFor(0, 16, 1, holdUpWorker).ok());
    CHECK_FALSE(timedOut.load());
    CHECK(byCaller.load() == 15);  // all but the worker's first
  }
}

TEST_CASE("with homes only, each thread runs exactly its home range, waiting for a late one", "[threadpool]") {
  // The worker is held back 50 ms in its first chunk; the caller must not take its range.
  ThreadPool pool(2);
  pool.setHomesOnly(true);
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<int64_t> byCaller, byWorker;
  const auto record = [&](int64_t b, int64_t) {
    const bool mine = std::this_thread::get_id() == caller;
    if (!mine && byWorker.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard lock(mutex);
    (mine ? byCaller : byWorker).push_back(b);
  };
  REQUIRE(pool.parallelFor(0, 16, 1, record).ok());
  std::sort(byCaller.begin(), byCaller.end());
  std::sort(byWorker.begin(), byWorker.end());
  CHECK(byCaller == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(byWorker == std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15});
  // Off again: the caller takes what the held-back worker leaves.
  pool.setHomesOnly(false);
  byCaller.clear(), byWorker.clear();
  REQUIRE(pool.parallelFor(0, 16, 1, record).ok());
  CHECK(byCaller.size() > 8);
}
