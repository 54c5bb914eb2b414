#pragma once
// Where section calls of the schedule fall in a run's trace: the first step's
// calls found in time order among the trace's section slices (mirrors left
// out), so a tensor's lifetime in calls becomes a time range on the timeline.
#include <optional>
#include <vector>

#include "profile/CompactTrace.h"
#include "selection/SelectionState.h"

namespace dfc::views {

// From the start of call `first` to the end of call `last` of the first step
// whose calls the trace holds in schedule order; nullopt when the trace does
// not reach call `last`.
std::optional<TimeRange> callsTimeRange(const profile::CompactTrace& trace, const std::vector<int>& callSections,
                                        int first, int last);

}  // namespace dfc::views
