#pragma once
// Generated chrome traces for bench_timeline, written straight to a file
// (never held in memory): our run's layout and a PyTorch-profiler-like one.
#include <cstddef>
#include <string>

namespace dfc::bench {

enum class TraceLayout {
  // dfc run's trace: the whole-model row with one slice per section call
  // (section id, step, estimated latency, bandwidth), the same
  // calls mirrored on 12 hyperfunction rows (category "<role>,mirror"), a
  // host row with per-step phases, a loss counter, the sections table in
  // otherData.
  Ours,
  // The PyTorch profiler (Kineto): absolute microsecond timestamps, a main
  // thread with ProfilerStep > module > aten op > cudaLaunchKernel nesting,
  // an autograd thread, two GPU streams of kernels with their launch
  // arguments, ac2g flow events; indented JSON as Kineto writes it.
  PyTorch,
};

const char* layoutName(TraceLayout layout);
// Writes about `slices` complete events; returns how many, or 0 on failure.
size_t writeBenchTrace(const std::string& path, size_t slices, TraceLayout layout);

}  // namespace dfc::bench
