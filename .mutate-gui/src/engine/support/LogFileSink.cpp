#include "support/LogFileSink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/SafePath.h"

namespace dfc::support {

Expected<std::shared_ptr<LogFileSink>> LogFileSink::open(const std::string& path, Mode mode, const std::string& what) {
  auto target = checkOutputFile(path, what);
  if (!target) return target.error();
  // O_NOFOLLOW: the path checked above is the path opened, even if a link appears in between;
  // O_NONBLOCK: a FIFO put there meanwhile fails to open instead of waiting for a reader.
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                    (mode == Mode::Truncate ? O_TRUNC : O_APPEND);
  int fd = ::open(target->c_str(), flags, 0644);
  if (fd < 0) return makeError(what + " " + path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return makeError(what + " " + path + ": is not a regular file; refusing to write to it");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return std::shared_ptr<LogFileSink>(new LogFileSink(fd));
}

LogFileSink::~LogFileSink() { ::close(m_fd); }

void LogFileSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t text;
  formatter_->format(msg, text);
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(m_fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ++m_failedWrites;
      return;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace dfc::support
