#pragma once
// Where a run's host time goes (SambaTune's snprof breakdown): the phases the
// trace's host row shows as nested slices, totalled per phase name. The run
// keeps the totals as it goes (every step, also those --trace-steps leaves
// out of the trace), stores them with the run, and `dfc inspect --run ID`
// prints them as a table.
#include <string>
#include <string_view>
#include <vector>

#include "profile/RunStore.h"
#include "profile/Trace.h"

namespace dfc::driver {

// The host row's slice names, outermost first; a phase's depth is its nesting on the row.
struct HostPhaseInfo {
  std::string_view name;
  int depth;
  std::string_view doc;
};
namespace host {
inline constexpr std::string_view kSetup = "run setup";
inline constexpr std::string_view kJoinRanks = "join ranks";
inline constexpr std::string_view kPefLoad = "PEF load and verification";
inline constexpr std::string_view kWeights = "weight materialization";
inline constexpr std::string_view kDataLoad = "data loading";
inline constexpr std::string_view kEpoch = "train epoch";
inline constexpr std::string_view kEvaluate = "evaluate";
inline constexpr std::string_view kStep = "step";
inline constexpr std::string_view kFeed = "data feeding";
inline constexpr std::string_view kDispatch = "section dispatch overhead";
// A step slice's args: its dispatch overhead in all, and how many gaps made it
// (the trace writes the total per step, not a slice per gap).
inline constexpr std::string_view kDispatchUsArg = "dispatch_us";
inline constexpr std::string_view kDispatchGapsArg = "dispatch_gaps";
inline constexpr std::string_view kStoreWrite = "store writing";
inline constexpr std::string_view kTraceWrite = "trace writing";
}  // namespace host
const std::vector<HostPhaseInfo>& hostPhases();

struct HostPhaseTotal {
  std::string name;
  int depth = 0;
  double totalUs = 0;
  int64_t count = 0;
};

class HostBreakdown {
 public:
  void add(std::string_view name, double us);
  // In hostPhases() order (unknown names after them), phases never seen left out.
  std::vector<HostPhaseTotal> rows() const;
  // Wall time the top-level phases cover.
  double topLevelUs() const;

 private:
  std::vector<HostPhaseTotal> m_rows;
};

// Totals of the host row (pid, tid) of a trace: the same table from the file.
std::vector<HostPhaseTotal> hostBreakdownOfTrace(const profile::Trace& trace, int64_t pid, int64_t tid);

// As run-store metrics ("host_ms:<phase>" and "host_calls:<phase>"), and back.
std::vector<profile::MetricRecord> hostBreakdownMetrics(const std::vector<HostPhaseTotal>& rows);
std::vector<HostPhaseTotal> hostBreakdownFromMetrics(const std::vector<profile::MetricRecord>& metrics);

// The table `dfc inspect --run` prints: phase (indented by depth), total ms, share of the top level, count.
std::string hostBreakdownTable(const std::vector<HostPhaseTotal>& rows);

}  // namespace dfc::driver
