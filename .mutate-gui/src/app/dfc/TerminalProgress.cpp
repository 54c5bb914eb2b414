#include "TerminalProgress.h"

#include <unistd.h>

#include <cstdio>

namespace dfc::cli {
namespace {

constexpr double kPlainLineSeconds = 5;  // in a pipe, a stage shorter than this prints nothing
constexpr double kEtaAfter = 0.05;       // the time left is guessed once this share is done

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

TerminalProgress::TerminalProgress(std::string what) : TerminalProgress(std::move(what), ::isatty(2) == 1) {}

TerminalProgress::TerminalProgress(std::string what, bool terminal) : m_what(std::move(what)), m_terminal(terminal) {
  if (m_terminal) m_ticker = std::thread([this] { tick(); });
}

TerminalProgress::~TerminalProgress() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    if (!m_terminal) finishStage(Clock::now());
  }
  m_wake.notify_all();
  if (m_ticker.joinable()) m_ticker.join();
  if (m_terminal && m_drawn > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(m_drawn), "");
}

std::string TerminalProgress::duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return buf;
}

void TerminalProgress::update(const std::string& stage, double fraction) {
  std::lock_guard lock(m_mutex);
  const auto now = Clock::now();
  if (stage != m_stage) {
    finishStage(now);
    m_stage = stage;
    m_stageStart = now;
  }
  m_fraction = std::max(m_fraction, std::min(1.0, fraction));
}

// In a pipe: the stage that just ended, if it was long enough to wonder about.
void TerminalProgress::finishStage(Clock::time_point now) {
  if (m_terminal || m_stage.empty() || seconds(now - m_stageStart) < kPlainLineSeconds) return;
  std::fprintf(stderr, "dfc: %s: %s took %s (%.0f%% done, %s elapsed)\n", m_what.c_str(), m_stage.c_str(),
               duration(seconds(now - m_stageStart)).c_str(), 100 * m_fraction, duration(seconds(now - m_start)).c_str());
}

std::string TerminalProgress::lineLocked(Clock::time_point now) const {
  const double elapsed = seconds(now - m_start);
  std::string out = m_what + ": " + (m_stage.empty() ? std::string("starting") : m_stage);
  char buf[96];
  std::snprintf(buf, sizeof buf, " %3.0f%% | %s", 100 * m_fraction, duration(elapsed).c_str());
  out += buf;
  if (m_fraction >= kEtaAfter && m_fraction < 1)
    out += " | about " + duration(elapsed * (1 - m_fraction) / m_fraction) + " left";
  return out;
}

void TerminalProgress::clear() {
  std::lock_guard lock(m_mutex);
  if (!m_terminal || m_drawn == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(m_drawn), "");
  std::fflush(stderr);
  m_drawn = 0;
}

std::string TerminalProgress::line() const {
  std::lock_guard lock(m_mutex);
  return lineLocked(Clock::now());
}

void TerminalProgress::tick() {
  std::unique_lock lock(m_mutex);
  while (!m_wake.wait_for(lock, std::chrono::milliseconds(500), [this] { return m_stop; })) {
    std::string text = lineLocked(Clock::now());
    const size_t pad = m_drawn > text.size() ? m_drawn - text.size() : 0;
    std::fprintf(stderr, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
    std::fflush(stderr);
    m_drawn = text.size();
  }
}

}  // namespace dfc::cli
