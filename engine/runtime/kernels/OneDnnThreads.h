#pragma once
// oneDNN's OpenMP team held at one thread on the calling thread (OpenMP keeps
// the setting per thread): its sgemm and primitives then run inline, libgomp
// starts no threads that spin against the runtime's pool, and the runtime
// splits the work over its pool itself. omp_set_num_threads is looked up
// rather than linked, so a oneDNN on another threading runtime simply has none.
#include <dlfcn.h>

namespace dfc::runtime::kernels {

inline void holdOneDnnToOneThread() {
  using SetThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  thread_local bool held = false;
  if (held || !set) return;
  set(1);
  held = true;
}

}  // namespace dfc::runtime::kernels
