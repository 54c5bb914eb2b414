#include "driver/report/HostBreakdown.h"

#include <algorithm>
#include <cstdio>

namespace dfc::driver {

namespace {
constexpr std::string_view kMsPrefix = "host_ms:", kCallsPrefix = "host_calls:";

size_t phaseOrder(std::string_view name) {
  const auto& phases = hostPhases();
  for (size_t i = 0; i < phases.size(); ++i)
    if (phases[i].name == name) return i;
  return phases.size();
}

int phaseDepth(std::string_view name) {
  const size_t i = phaseOrder(name);
  return i < hostPhases().size() ? hostPhases()[i].depth : 0;
}

std::vector<HostPhaseTotal> ordered(std::vector<HostPhaseTotal> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const HostPhaseTotal& a, const HostPhaseTotal& b) {
    return phaseOrder(a.name) < phaseOrder(b.name);
  });
  return rows;
}

HostPhaseTotal& rowFor(std::vector<HostPhaseTotal>& rows, std::string_view name) {
  for (auto& r : rows)
    if (r.name == name) return r;
  return rows.emplace_back(HostPhaseTotal{std::string(name), phaseDepth(name), 0, 0});
}
}  // namespace

const std::vector<HostPhaseInfo>& hostPhases() {
  static const std::vector<HostPhaseInfo> kPhases = {
      {host::kSetup, 0, "options, output paths, the run store opened"},
      {host::kJoinRanks, 0, "data parallel: joining the other ranks (MPI_Init)"},
      {host::kPefLoad, 0, "the PEF read, every chunk's size and checksum checked"},
      {host::kWeights, 0, "executor: weights and state materialized, arena planned, kernels prepared"},
      {host::kDataLoad, 0, "dataset read and prepared"},
      {host::kEpoch, 0, "one training epoch"},
      {host::kEvaluate, 0, "forward steps over the test split"},
      {host::kStep, 1, "one step"},
      {host::kFeed, 2, "batch filled and copied into the inputs"},
      {host::kDispatch, 2, "host time of a step outside section calls (dispatch, state updates, recording)"},
      {host::kStoreWrite, 2, "section calls and metrics written to the run store"},
      {host::kTraceWrite, 0, "trace rows gathered and serialized"},
  };
  return kPhases;
}

void HostBreakdown::add(std::string_view name, double us) {
  HostPhaseTotal& r = rowFor(m_rows, name);
  r.totalUs += us;
  ++r.count;
}

std::vector<HostPhaseTotal> HostBreakdown::rows() const { return ordered(m_rows); }

double HostBreakdown::topLevelUs() const {
  double total = 0;
  for (const auto& r : m_rows)
    if (r.depth == 0) total += r.totalUs;
  return total;
}

std::vector<HostPhaseTotal> hostBreakdownOfTrace(const profile::Trace& trace, int64_t pid, int64_t tid) {
  std::vector<HostPhaseTotal> rows;
  for (const profile::TraceEvent& e : trace.events) {
    if (e.ph != 'X' || e.pid != pid || e.tid != tid) continue;
    HostPhaseTotal& r = rowFor(rows, e.name);
    r.totalUs += e.dur;
    ++r.count;
    // A step carries its dispatch overhead as a total of its gaps.
    for (const auto& [key, value] : e.args) {
      const double* number = std::get_if<double>(&value);
      if (!number || (key != host::kDispatchUsArg && key != host::kDispatchGapsArg)) continue;
      HostPhaseTotal& d = rowFor(rows, host::kDispatch);
      if (key == host::kDispatchUsArg) d.totalUs += *number;
      else d.count += static_cast<int64_t>(*number);
    }
  }
  return ordered(std::move(rows));
}

std::vector<profile::MetricRecord> hostBreakdownMetrics(const std::vector<HostPhaseTotal>& rows) {
  std::vector<profile::MetricRecord> out;
  for (const auto& r : rows) {
    out.push_back({0, 0, std::string(kMsPrefix) + r.name, r.totalUs / 1000.0});
    out.push_back({0, 0, std::string(kCallsPrefix) + r.name, static_cast<double>(r.count)});
  }
  return out;
}

std::vector<HostPhaseTotal> hostBreakdownFromMetrics(const std::vector<profile::MetricRecord>& metrics) {
  std::vector<HostPhaseTotal> rows;
  for (const auto& m : metrics) {
    if (m.name.starts_with(kMsPrefix))
      rowFor(rows, m.name.substr(kMsPrefix.size())).totalUs = m.value * 1000.0;
    else if (m.name.starts_with(kCallsPrefix))
      rowFor(rows, m.name.substr(kCallsPrefix.size())).count = static_cast<int64_t>(m.value);
  }
  return ordered(std::move(rows));
}

std::string hostBreakdownTable(const std::vector<HostPhaseTotal>& rows) {
  double top = 0;
  for (const auto& r : rows)
    if (r.depth == 0) top += r.totalUs;
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%-36s %12s %7s %9s\n", "host phase", "total ms", "share", "count");
  out += line;
  for (const auto& r : rows) {
    const std::string name = std::string(static_cast<size_t>(r.depth) * 2, ' ') + r.name;
    std::snprintf(line, sizeof line, "%-36.36s %12.3f %6.1f%% %9lld\n", name.c_str(), r.totalUs / 1000.0,
                  top > 0 ? 100.0 * r.totalUs / top : 0.0, static_cast<long long>(r.count));
    out += line;
  }
  std::snprintf(line, sizeof line, "%-36s %12.3f %6.1f%%\n", "host wall time (top level)", top / 1000.0,
                top > 0 ? 100.0 : 0.0);
  return out + line;
}

}  // namespace dfc::driver
