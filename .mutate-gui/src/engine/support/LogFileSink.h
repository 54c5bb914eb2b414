#pragma once
// A log file opened under the output-file policy every file dfc writes obeys
// (support/SafePath.h): a regular file or nothing; a symlink out of its folder,
// a FIFO or a device is refused before anything is written, and opening never
// blocks. Writes never throw: a failed write (disk full) is counted and the
// message dropped, so a log can neither abort a compile nor hang it.
#include <spdlog/sinks/base_sink.h>

#include <atomic>
#include <mutex>
#include <string>

#include "support/Error.h"

namespace dfc::support {

class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  enum class Mode { Truncate, Append };
  // `what` names the file in errors ("--log-dir", "compile log").
  static Expected<std::shared_ptr<LogFileSink>> open(const std::string& path, Mode mode, const std::string& what);
  ~LogFileSink() override;
  LogFileSink(const LogFileSink&) = delete;
  LogFileSink& operator=(const LogFileSink&) = delete;

  // Messages that could not be written (0 while all went through).
  uint64_t failedWrites() const { return m_failedWrites.load(); }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}  // every message is written through at once

 private:
  explicit LogFileSink(int fd) : m_fd(fd) {}
  int m_fd = -1;
  std::atomic<uint64_t> m_failedWrites{0};
};

}  // namespace dfc::support
