#include "profile/TraceRecorder.h"

#include <utility>

namespace dfc::profile {

void TraceRecorder::setProcessName(int64_t pid, std::string name) {
  m_trace.processNames[pid] = std::move(name);
}

void TraceRecorder::setThreadName(int64_t pid, int64_t tid, std::string name, int64_t sortIndex) {
  m_trace.threadNames[{pid, tid}] = std::move(name);
  m_trace.threadSortIndex[{pid, tid}] = sortIndex;
}

void TraceRecorder::setMetadata(std::string key, std::string value) {
  m_trace.metadata[std::move(key)] = std::move(value);
}

void TraceRecorder::addSlice(int64_t pid, int64_t tid, std::string name, std::string cat, double tsUs,
                             double durUs, Args args) {
  TraceEvent& e = m_trace.events.emplace_back();
  e.ph = 'X';
  e.name = std::move(name);
  e.cat = std::move(cat);
  e.pid = pid;
  e.tid = tid;
  e.ts = tsUs;
  e.dur = durUs;
  e.args = std::move(args);
}

void TraceRecorder::addInstant(int64_t pid, int64_t tid, std::string name, std::string cat, double tsUs,
                               Args args) {
  TraceEvent& e = m_trace.events.emplace_back();
  e.ph = 'i';
  e.name = std::move(name);
  e.cat = std::move(cat);
  e.pid = pid;
  e.tid = tid;
  e.ts = tsUs;
  e.args = std::move(args);
}

void TraceRecorder::addCounter(int64_t pid, std::string name, double tsUs, std::string series, double value) {
  TraceEvent& e = m_trace.events.emplace_back();
  e.ph = 'C';
  e.name = std::move(name);
  e.pid = pid;
  e.ts = tsUs;
  e.args.emplace_back(std::move(series), value);
}

Trace TraceRecorder::take() {
  Trace out = std::move(m_trace);
  m_trace = Trace{};
  return out;
}

}  // namespace dfc::profile
