#pragma once
// The profiler's library clock: the time a thread spends inside library
// GEMM/convolution calls (oneDNN's and OpenBLAS's sgemm, oneDNN's convolution
// primitive), so a kernel profile can tell them from the runtime's own loops
// (im2col, Winograd transforms, epilogues, the depthwise kernel). The sink is
// per thread: the executor installs it on its calling thread while it
// profiles, and a ThreadPool loop passes its caller's sink on to the workers
// that run its chunks. Without a sink the timer costs one thread-local read.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace dfc::support {

// Where this thread's library calls add their time (ns); null: not profiling.
inline std::atomic<int64_t>*& libraryClockSink() {
  thread_local std::atomic<int64_t>* sink = nullptr;
  return sink;
}

// Installs `sink` on this thread for its lifetime (the previous one after).
class LibraryClockScope {
 public:
  explicit LibraryClockScope(std::atomic<int64_t>* sink) : m_previous(libraryClockSink()) { libraryClockSink() = sink; }
  ~LibraryClockScope() { libraryClockSink() = m_previous; }
  LibraryClockScope(const LibraryClockScope&) = delete;
  LibraryClockScope& operator=(const LibraryClockScope&) = delete;

 private:
  std::atomic<int64_t>* m_previous;
};

// Around one library call: adds its time to this thread's sink, if any.
class LibraryCallTimer {
 public:
  LibraryCallTimer() : m_sink(libraryClockSink()) {
    if (m_sink) m_start = std::chrono::steady_clock::now();
  }
  ~LibraryCallTimer() {
    if (!m_sink) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_start);
    m_sink->fetch_add(ns.count(), std::memory_order_relaxed);
  }
  LibraryCallTimer(const LibraryCallTimer&) = delete;
  LibraryCallTimer& operator=(const LibraryCallTimer&) = delete;

 private:
  std::atomic<int64_t>* m_sink;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace dfc::support
