#pragma once
// A run as a table of stages over one RunState; driver::run runs the table.
// Private to driver/.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "dist/Allreduce.h"
#include "dist/Communicator.h"
<<<<<<< HEAD:engine/driver/run/RunStages.h
=======
#include "driver/DataFeeder.h"
#include "driver/DecodeStep.h"
#include "driver/RunInputs.h"
#include "driver/RunTrace.h"
#include "driver/Runner.h"
>>>>>>> issue-33-run:engine/driver/RunStages.h
#include "driver/Stages.h"
#include "driver/decode/DecodeStep.h"
#include "driver/run/DataFeeder.h"
#include "driver/run/RunTrace.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"
#include "runtime/Executor.h"

namespace dfc::driver {

struct RunState {
  using Clock = std::chrono::steady_clock;
  RunState(const RunOptions& o, const LogFn& l, const std::atomic<bool>* c) : opts(o), log(l), cancel(c) {}

  const RunOptions& opts;
  const LogFn& log;
  const std::atomic<bool>* cancel;
  Clock::time_point origin = Clock::now();  // time 0 of the trace
  Clock::time_point setupEnd = origin;      // validate: the host row's first "run setup" ends here

  pef::Pef pef;                             // load-pef
  std::optional<runtime::Executor> exec;    // load-pef
  std::optional<RunTrace> trace;            // load-pef
  bool training = false;                    // load-pef: a training PEF, not run with --inference
  std::unique_ptr<DataFeeder> feeder;       // load-data
  ir::ValueId input = ir::kNoValue, logits = ir::kNoValue;  // load-data
  DecodeSignature decode;                   // load-data, --decode: the PEF's decode interface
  pef::Pef draftPef;                        // load-data, --draft-pef
  std::optional<runtime::Executor> draftExec;
  DecodeSignature draftDecode;
  std::vector<BoundInput> given;            // load-data, --input: the graph's inputs
  std::optional<profile::RunStore> store;   // open-store (none with --db -)
  int64_t runId = 0;
  std::vector<profile::SectionCallRecord> pendingCalls;
  std::vector<profile::MetricRecord> pendingMetrics;
  RunResult result;
  int64_t step = 0;
  // Data parallel (driver/run/DataParallelRun.h): null comm outside --data-parallel.
  std::unique_ptr<dist::Communicator> ownedComm;
  dist::Communicator* comm = nullptr;
  std::unique_ptr<dist::AllreduceCommunicator> allreducer;  // --allreduce over comm: what the executor averages with
  std::vector<int> bucketOfSection;         // per section: its index in result.allreduceBuckets, or -1
  int64_t originUnixUs = 0;                 // wall-clock time of `origin`, to line the ranks' traces up
  std::vector<std::string> rankTraces;      // rank 0: the other ranks' traces (chrome JSON), in rank order
  bool isRoot() const { return result.rank == 0; }  // prints, evaluates, records, writes the trace

  void say(const std::string& line);
  bool cancelled() const { return cancel && cancel->load(); }
  // The running stage's share done (0..1) to RunOptions::progress; set by the stage loop.
  std::function<void(double withinStage)> stageProgress;
  double usSince(Clock::time_point from) const;  // from -> now
  double usAt(Clock::time_point t) const;        // origin -> t
  Status flush();                                // pending records into the store; never fails the run
  Status flushRecords();                         // flush() without its host-row slice
  Status storeUnavailable(const Error& e);       // keeps the records to retry and says so once
  std::string storeError;                        // the last store failure, "" once a write succeeds
  Status runStep(bool forwardOnly);              // one executor step, traced and recorded
  bool traced() const;                           // is the current step in the --trace-steps window?
  // A host-row slice from `from` to now (driver/report/HostBreakdown.h).
  void hostPhase(std::string_view name, Clock::time_point from, profile::Args args = {});
  void hostPhase(std::string_view name, Clock::time_point from, Clock::time_point to, profile::Args args = {});
  // The args of a step's host-row slice: its index and its dispatch overhead
  // (the host time between its section calls: one gap per call, so written
  // as a total here, not as ~100,000 slivers of an epoch; the breakdown still
  // counts every gap). Starts the next step's count.
  profile::Args stepArgs(int64_t index);
  double stepDispatchUs = 0;
  int64_t stepDispatchGaps = 0;
  Expected<ir::ValueId> valueNamed(const std::string& name) const;
};

std::span<const Stage<RunState>> runStages();

// One step on the host row: `feed` fills the inputs, the executor runs the
// sections, `after` reads what it needs; --trace-steps decides whether the
// step's slices are written (the breakdown counts them either way).
template <typename Feed, typename After>
Status hostStep(RunState& s, bool forwardOnly, Feed feed, After after) {
  const auto start = RunState::Clock::now();
  const bool traced = s.traced();
  const int64_t index = s.step;
  DFC_TRY(feed());
  s.hostPhase(host::kFeed, start);
  DFC_TRY(s.runStep(forwardOnly));
  DFC_TRY(after());
  s.trace->addHostPhase(host::kStep, s.usAt(start), s.usSince(start), traced, s.stepArgs(index));
  return {};
}

}  // namespace dfc::driver
