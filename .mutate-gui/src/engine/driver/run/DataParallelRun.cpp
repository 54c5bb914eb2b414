#include "driver/run/DataParallelRun.h"

#include <spdlog/spdlog.h>

#include <bit>
#include <chrono>
#include <cstdlib>

#include "arch/CollectiveModel.h"
#include "dist/Allreduce.h"
#include "dist/Communicator.h"
#include "driver/compile/DataParallelCompile.h"
#include "driver/run/RunStages.h"
#include "profile/ChromeTrace.h"

namespace dfc::driver {
namespace {

constexpr const char* kOriginKey = "origin_unix_us";

Status checkPefMatchesFlag(const RunState& s) {
  const pef::PefMeta& meta = s.pef.meta;
  if (s.opts.dataParallel && meta.worldSize == 0)
    return makeError("--data-parallel: " + s.opts.pefPath +
                     " was compiled without --data-parallel (recompile with --data-parallel -ws N)");
  if (!s.opts.dataParallel && meta.worldSize > 0)
    return makeError(s.opts.pefPath + " was compiled with --data-parallel -ws " + std::to_string(meta.worldSize) +
                     ": run it with --data-parallel (under mpirun -np N)");
  if (s.opts.dataParallel && s.opts.inference)
    return makeError("--data-parallel trains replicas: it cannot be combined with --inference");
  return {};
}

// --allreduce: the algorithm, then one bucket per reduce section with the
// algorithm's estimate for its bytes (the links from the compile report).
Status setUpAllreduce(RunState& s) {
  dist::AllreduceSettings settings;
  settings.algorithm = *dist::parseAllreduceAlgorithm(s.opts.allreduce);  // checkAllreduceOptions passed
  settings.ranksPerHost = s.opts.ranksPerHost;
  auto made = dist::AllreduceCommunicator::make(*s.comm, settings);
  if (!made) return made.error();
  s.allreducer = std::move(*made);
  const dist::AllreduceCommunicator& ar = *s.allreducer;
  s.result.allreduceAlgorithm = std::string(dist::allreduceAlgorithmName(ar.algorithm()));
  if (ar.algorithm() == dist::AllreduceAlgorithm::Ring2d)
    s.result.allreduceAlgorithm += " (" + std::to_string(ar.hosts()) + " hosts x " +
                                   std::to_string(ar.worldSize() / ar.hosts()) + " ranks)";
  if (!ar.note().empty()) s.result.dataParallelNote += (s.result.dataParallelNote.empty() ? "" : "; ") + ar.note();
  const arch::AllreduceLinks links = dataParallelLinks(s.pef.reportJson);
  const auto& sections = s.pef.plan.sections;
  s.bucketOfSection.assign(sections.size(), -1);
  for (const auto& section : sections) {
    if (section.type != ir::NodeRole::Reduce) continue;
    RunResult::AllreduceBucket b;
    b.sectionId = section.id;
    b.section = section.name;
    b.bytes = gradientBytes(s.pef, section);
    b.estUs = arch::estimateAllreduceUs(dist::allreduceAlgorithmName(ar.algorithm()), b.bytes, ar.worldSize(),
                                        ar.worldSize() / ar.hosts(), links, dist::kTreeChunkFloats * sizeof(float));
    s.bucketOfSection[static_cast<size_t>(section.id)] = static_cast<int>(s.result.allreduceBuckets.size());
    s.result.allreduceBuckets.push_back(std::move(b));
  }
  return {};
}

Expected<dist::Communicator*> connect(RunState& s) {
  if (s.opts.communicator) return s.opts.communicator;
  if (!dist::launchedByMpiLauncher()) {
    s.ownedComm = dist::makeSoloCommunicator();
    s.result.dataParallelNote = "--data-parallel without mpirun: running as world size 1 (start N ranks with mpirun -np N)";
    return s.ownedComm.get();
  }
  auto comm = dist::makeMpiCommunicator();
  if (!comm) return comm.error();
  s.ownedComm = std::move(*comm);
  return s.ownedComm.get();
}

// FNV-1a over every parameter's bytes: equal hashes on every rank mean equal weights.
uint64_t weightsHash(const RunState& s) {
  uint64_t h = 1469598103934665603ull;
  for (ir::ValueId p : s.pef.graph.params()) {
    const ir::Tensor& t = s.exec->tensor(p);
    const auto* bytes = reinterpret_cast<const unsigned char*>(t.bytes());
    for (size_t i = 0; i < t.byteSize(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

}  // namespace

Status joinDataParallel(RunState& s) {
  DFC_TRY(checkPefMatchesFlag(s));
  if (!s.opts.dataParallel) return {};
  auto comm = connect(s);
  if (!comm) return comm.error();
  s.comm = *comm;
  const int world = s.comm->worldSize(), compiled = s.pef.meta.worldSize;
  s.result.worldSize = world;
  s.result.rank = s.comm->rank();
  DFC_TRY(setUpAllreduce(s));
  if (world > 1 && world < compiled)
    return makeError("--data-parallel: " + std::to_string(world) + " ranks, but " + s.opts.pefPath +
                     " was compiled for at least " + std::to_string(compiled) + " (-ws " + std::to_string(compiled) +
                     "): start mpirun -np " + std::to_string(compiled) + " or more, or recompile with -ws " +
                     std::to_string(world));
  s.originUnixUs = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch() -
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(RunState::Clock::now() - s.origin))
                       .count();
  if (s.result.rank == 0)
    spdlog::info("data parallel: rank 0 of {} over {}; each rank trains on batch {} of a global batch {}", world,
                 s.comm->describe(), s.pef.meta.batchSize, s.pef.meta.batchSize * world);
  return {};
}

Status checkAllreduceOptions(const RunOptions& o) {
  if (!dist::parseAllreduceAlgorithm(o.allreduce))
    return makeError("--allreduce " + o.allreduce + ": expected one of " + dist::allreduceAlgorithmList());
  if (o.allreduce != "mpi" && !o.dataParallel)
    return makeError("--allreduce " + o.allreduce + " averages gradients across ranks: it needs --data-parallel");
  if (o.ranksPerHost < 0) return makeError("--ranks-per-host must be at least 1");
  if (o.ranksPerHost > 0 && o.allreduce != "2d-ring")
    return makeError("--ranks-per-host arranges the ranks for --allreduce 2d-ring only");
  return {};
}

void traceAllreduce(RunState& s) {
  if (!s.allreducer) return;
  std::vector<double> estUs(s.pef.plan.sections.size(), 0.0);
  for (const auto& b : s.result.allreduceBuckets) estUs[static_cast<size_t>(b.sectionId)] = b.estUs;
  s.trace->setAllreduce(s.result.allreduceAlgorithm, std::move(estUs));
}

void noteAllreduceCall(RunState& s, const runtime::SectionCall& call) {
  RunResult& r = s.result;
  r.allreduceUs += call.durationUs;
  r.allreduceBytes += call.bytes / 2;  // in and out: the gradients once
  ++r.allreduceCalls;
  const auto id = static_cast<size_t>(call.sectionId);
  const int k = id < s.bucketOfSection.size() ? s.bucketOfSection[id] : -1;
  if (k < 0) {  // no --data-parallel communicator: the compile's estimate
    r.allreduceEstUs += s.pef.plan.sections.at(id).estimate.latencyUs;
    return;
  }
  RunResult::AllreduceBucket& b = r.allreduceBuckets[static_cast<size_t>(k)];
  ++b.calls;
  b.measuredUs += call.durationUs;
  r.allreduceEstUs += b.estUs;
  const dist::PhaseLog phases = s.allreducer->takePhases();
  if (!s.traced()) return;
  const double callStart = s.usAt(call.start);
  for (const auto& phase : phases)
    s.trace->addAllreducePhase(phase.name, s.usAt(phase.start),
                               std::chrono::duration<double, std::micro>(phase.end - phase.start).count(), callStart,
                               call.durationUs);
}

int64_t shardBatchIndex(const RunState& s, int64_t step) {
  if (!s.comm) return step;
  return step * s.comm->worldSize() + s.comm->rank();
}

int64_t shardSteps(const RunState& s, int64_t perRankBatches) {
  return s.comm ? perRankBatches / s.comm->worldSize() : perRankBatches;
}

Expected<double> averageLoss(RunState& s, double loss) {
  if (!s.comm || s.comm->worldSize() == 1) return loss;
  float value = static_cast<float>(loss);
  DFC_TRY(s.comm->allreduceAverage({&value, 1}));
  return static_cast<double>(value);
}

Status finishDataParallelTraining(RunState& s) {
  if (!s.comm) return {};
  RunResult& r = s.result;
  auto hashes = s.comm->allgather(weightsHash(s));
  if (!hashes) return hashes.error();
  for (size_t rank = 1; rank < hashes->size(); ++rank)
    if ((*hashes)[rank] != (*hashes)[0])
      return internalError("data parallel: rank " + std::to_string(rank) + "'s weights differ from rank 0's after " +
                           std::to_string(s.step) + " steps");
  r.weightsChecked = true;
  auto rates = s.comm->allgather(std::bit_cast<uint64_t>(r.samplesPerSecond));
  if (!rates) return rates.error();
  r.rankSamplesPerSecond.clear();
  for (uint64_t bits : *rates) r.rankSamplesPerSecond.push_back(std::bit_cast<double>(bits));
  // The other ranks' rows, gathered now: they leave while rank 0 evaluates.
  std::string mine;
  if (s.comm->rank() != 0) {
    profile::Trace t = s.trace->take();
    t.metadata[kOriginKey] = std::to_string(s.originUnixUs);
    mine = profile::chromeTraceToJson(t);
  }
  auto texts = s.comm->gatherToRoot(mine);
  if (!texts) return texts.error();
  if (s.comm->rank() == 0) s.rankTraces.assign(texts->begin() + 1, texts->end());
  return {};
}

void recordDataParallelMetrics(RunState& s) {
  if (!s.comm) return;
  RunResult& r = s.result;
  auto metric = [&](const std::string& name, double value) { s.pendingMetrics.push_back({s.step, s.opts.epochs, name, value}); };
  metric("world_size", r.worldSize);
  double total = 0;
  for (size_t rank = 0; rank < r.rankSamplesPerSecond.size(); ++rank) {
    metric("samples_per_s_rank" + std::to_string(rank), r.rankSamplesPerSecond[rank]);
    total += r.rankSamplesPerSecond[rank];
  }
  r.samplesPerSecond = total;
  metric("allreduce_calls", static_cast<double>(r.allreduceCalls));
  metric("allreduce_ms", r.allreduceUs / 1e3);
  metric("allreduce_est_ms", r.allreduceEstUs / 1e3);
  metric("allreduce_bytes", r.allreduceBytes);
  metric("weights_identical", r.weightsChecked ? 1.0 : 0.0);
}

Status mergeRankTraces(const RunState& s, profile::Trace& trace) {
  for (size_t i = 0; i < s.rankTraces.size(); ++i) {
    auto other = profile::parseChromeTrace(s.rankTraces[i], "rank " + std::to_string(i + 1) + "'s trace");
    if (!other) return other.error();
    double shiftUs = 0;
    if (auto it = other->metadata.find(kOriginKey); it != other->metadata.end())
      shiftUs = static_cast<double>(std::strtoll(it->second.c_str(), nullptr, 10) - s.originUnixUs);
    for (profile::TraceEvent& e : other->events) {
      e.ts += shiftUs;
      trace.events.push_back(std::move(e));
    }
    trace.processNames.insert(other->processNames.begin(), other->processNames.end());
    trace.threadNames.insert(other->threadNames.begin(), other->threadNames.end());
    trace.threadSortIndex.insert(other->threadSortIndex.begin(), other->threadSortIndex.end());
  }
  return {};
}

}  // namespace dfc::driver
