#pragma once
// Whether the process that began a run is still alive: its pid, the start
// time the kernel gives that pid (so a reused pid is not mistaken for it) and
// the host. A run whose process is gone without finishing died (kill -9, a
// crash, a power cut); the run store marks it so when it is next opened.
#include <cstdint>
#include <string>

namespace dfc::profile {

struct ProcessStamp {
  int64_t pid = 0;
  std::string startTime;  // /proc/<pid>/stat field 22 (clock ticks since boot); "" if unknown
  std::string host;
};

ProcessStamp currentProcess();
// False only when the stamp is from this host and that process is certainly
// gone (no such pid, or the pid now belongs to a process started at another time).
bool mayBeAlive(const ProcessStamp& stamp);

}  // namespace dfc::profile
