#pragma once
// Where every intermediate of a step lives: liveness over the schedule (a
// fused group is one position), then offsets in one arena from the memory
// planner. The executor allocates from it; the compiler and `dfc inspect` ask
// it for the host memory a step needs, with the same numbers.
#include <map>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "runtime/SectionFusion.h"
#include "support/Error.h"

namespace dfc::runtime {

struct ArenaPlan {
  std::vector<ir::ValueId> planned;  // intermediates with arena space (views last)
  std::vector<size_t> offsets;       // parallel to planned
  std::vector<ir::ValueId> viewOf;   // by ValueId: the value whose bytes this one shares (a view), or kNoValue
  std::vector<bool> inTile;          // by ValueId: kept in a fused chain's tile, no memory
  std::vector<bool> unscheduled;     // by ValueId: intermediates this schedule never computes
  // A fused attention's row statistics (log-sum-exp), live from its forward to its backward.
  std::map<const AttentionPattern*, size_t> statsOffsets;
  size_t arenaBytes = 0;
};

// `schedule` holds indices into the plan's sections; `groups` one entry per
// section. With `views`, a reshape, or a slice that is one contiguous aligned
// range of its input, whose input is computed in the same section shares the
// input's bytes instead of a copy (ReshapeKernel and SliceKernel then copy nothing).
Expected<ArenaPlan> planArena(const ir::Graph& graph, const std::vector<size_t>& schedule,
                              const std::vector<std::vector<FusionGroup>>& groups, bool views);

struct HostMemory {
  size_t arenaBytes = 0;       // intermediates, planned by liveness (fused as the runtime runs them)
  size_t persistentBytes = 0;  // params, consts (optimizer state included) and inputs
  size_t total() const { return arenaBytes + persistentBytes; }
};

// The host memory the runtime will use for one step of `graph` under `plan`,
// without allocating it.
Expected<HostMemory> estimateHostMemory(const ir::Graph& graph, const partition::Plan& plan, bool fuse = true);

}  // namespace dfc::runtime
