#pragma once
// The run's data-parallel part (dfc run --data-parallel), private to driver/:
// joining the ranks, the checks against the PEF, each rank's shard, the loss
// and weights across ranks, and rank 0 gathering the ranks' traces.
#include <string>
#include <vector>

#include "driver/run/Runner.h"
#include "profile/Trace.h"
#include "runtime/Executor.h"
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// Joins the ranks (before the executor is made), checks the PEF was compiled
// for data parallel (and the other way round) and sets up --allreduce.
Status joinDataParallel(RunState& s);
// --allreduce and --ranks-per-host: a known name, and only with --data-parallel.
Status checkAllreduceOptions(const RunOptions& o);
// The trace's allreduce row: the algorithm and its estimate per reduce section.
void traceAllreduce(RunState& s);
// After a reduce section's call: its time beside the algorithm's estimate, and
// (when the step is traced) the algorithm's phases under its allreduce slice.
void noteAllreduceCall(RunState& s, const runtime::SectionCall& call);
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
