#include "profile/StoreLiveness.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace dfc::profile {
namespace {

// Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces
// and parentheses, so fields are counted after its last ')'.
std::string startTimeOf(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return field;
  return {};
}

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

}  // namespace

ProcessStamp currentProcess() {
  ProcessStamp s;
  s.pid = ::getpid();
  s.startTime = startTimeOf(s.pid);
  s.host = hostName();
  return s;
}

bool mayBeAlive(const ProcessStamp& stamp) {
  if (stamp.pid <= 0 || stamp.host.empty() || stamp.host != hostName()) return true;  // cannot tell
  std::string now = startTimeOf(stamp.pid);
  if (now.empty()) return false;  // no such process
  return stamp.startTime.empty() || now == stamp.startTime;
}

}  // namespace dfc::profile
