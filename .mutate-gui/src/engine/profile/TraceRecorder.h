#pragma once
// Builds a Trace event by event: the runtime and driver call this while a run
// goes, then hand the result to writeChromeTrace.
#include <cstdint>
#include <string>

#include "profile/Trace.h"

namespace dfc::profile {

class TraceRecorder {
 public:
  void setProcessName(int64_t pid, std::string name);
  void setThreadName(int64_t pid, int64_t tid, std::string name, int64_t sortIndex);
  void setMetadata(std::string key, std::string value);

  void addSlice(int64_t pid, int64_t tid, std::string name, std::string cat, double tsUs, double durUs,
                Args args = {});
  void addInstant(int64_t pid, int64_t tid, std::string name, std::string cat, double tsUs, Args args = {});
  void addCounter(int64_t pid, std::string name, double tsUs, std::string series, double value);

  void reserve(size_t events) { m_trace.events.reserve(events); }
  size_t size() const { return m_trace.events.size(); }
  const Trace& trace() const { return m_trace; }
  // Hands over the trace and leaves the recorder empty.
  Trace take();

 private:
  Trace m_trace;
};

}  // namespace dfc::profile
