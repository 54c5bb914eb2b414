#pragma once
// A one-line progress display for long work, on stderr: the stage, the share
// done, the time elapsed and, once enough is done to judge, the time left.
// On a terminal the line is redrawn in place twice a second and cleared at the
// end; elsewhere (a pipe, CI, a log) only a plain line for each stage that ran
// longer than a few seconds, so short runs print nothing extra.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace dfc::cli {

class TerminalProgress {
 public:
  // `what`: "compile", "run"; `terminal`: draw in place (default: stderr is a TTY).
  explicit TerminalProgress(std::string what);
  TerminalProgress(std::string what, bool terminal);
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // From any thread. `fraction` is of the whole work, 0..1.
  void update(const std::string& stage, double fraction);

  // Erases the drawn line (terminal only) so that other output starts at its
  // column 0; the next tick draws it again below that output.
  void clear();

  // The line as it would be drawn now (tests).
  std::string line() const;

  // "1:05", "12.3 s": elapsed and remaining times.
  static std::string duration(double seconds);

 private:
  using Clock = std::chrono::steady_clock;
  void tick();
  void finishStage(Clock::time_point now);
  std::string lineLocked(Clock::time_point now) const;

  std::string m_what;
  bool m_terminal = false;
  Clock::time_point m_start = Clock::now(), m_stageStart = Clock::now();
  std::string m_stage;
  double m_fraction = 0;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  size_t m_drawn = 0;  // characters of the line on screen
  std::thread m_ticker;
};

}  // namespace dfc::cli
