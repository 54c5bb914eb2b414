#include "support/FileUtil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "support/SafePath.h"

namespace dfc::support {

Status writeFileAtomic(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  // Only a regular file is ever replaced: a device, FIFO or directory under
  // this name is refused, and a symlink is followed only within its folder.
  auto target = checkOutputFile(path);
  if (!target) return target.error();
  const std::string& dest = *target;
  std::error_code ec;
  fs::path parent = fs::path(dest).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) return makeError(parent.string() + ": cannot create directory: " + ec.message());
  }
  std::string tmp = dest + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());  // a fresh name: never opens what someone placed there
  if (fd < 0) return makeError(path + ": cannot write: " + std::strerror(errno));
  ::fchmod(fd, 0644);
  auto fail = [&](const std::string& what) {
    std::string msg = path + ": " + what + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return makeError(msg);
  };
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write failed");
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("write failed");
  ::close(fd);
  if (::rename(tmp.c_str(), dest.c_str()) != 0) {
    std::string msg = std::strerror(errno);
    ::unlink(tmp.c_str());
    return makeError(path + ": cannot rename into place: " + msg);
  }
  // The rename itself survives a crash once the folder is synced.
  if (int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

Expected<std::string> readFile(const std::string& path) { return readRegularFile(path); }

std::string isoTimestampUtc() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace dfc::support
