#pragma once
// The run's data-parallel part (dfc run --data-parallel), private to driver/:
// joining the ranks, the checks against the PEF, each rank's shard, the loss
// and weights across ranks, and rank 0 gathering the ranks' traces.
#include <string>
#include <vector>

#include "profile/Trace.h"
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// Joins the ranks (before the executor is made) and checks the PEF was
// compiled for data parallel, and the other way round.
Status joinDataParallel(RunState& s);
// The batch rank r trains on at step i of an epoch: its share of global batch i.
int64_t shardBatchIndex(const RunState& s, int64_t step);
int64_t shardSteps(const RunState& s, int64_t perRankBatches);
// The step's loss averaged over the ranks (the global batch's loss).
Expected<double> averageLoss(RunState& s, double loss);
// After training: weights identical on every rank, per-rank throughput, the
// allreduce totals; then rank 0 collects the other ranks' traces.
Status finishDataParallelTraining(RunState& s);
// The run record's data-parallel figures (metrics): world size, each rank's
// samples/s, allreduce totals; the result's samples/s becomes the ranks' sum.
void recordDataParallelMetrics(RunState& s);
// Rank 0: the other ranks' trace rows merged into `trace`, each under its own pid.
Status mergeRankTraces(const RunState& s, profile::Trace& trace);

}  // namespace dfc::driver
