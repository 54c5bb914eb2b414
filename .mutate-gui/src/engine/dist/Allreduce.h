#pragma once
// Allreduce algorithms built on the Communicator's point-to-point calls (so
// the in-process group runs them in unit tests as MPI does under mpirun):
//   mpi      MPI_Allreduce (the library picks its own algorithm)
//   ring     reduce-scatter then all-gather around a ring of the ranks: 2(p-1)
//            steps, each sending one of p shards (sizes differ by at most one
//            float when p does not divide the buffer)
//   tree     double binary tree (as NCCL): two complementary in-order binary
//            trees each reduce half the buffer to their root and broadcast it
//            back, pipelined in chunks
//   2d-ring  ranks as hosts x local ranks: a reduce-scatter ring inside each
//            host, a ring across hosts on each local rank's shard, an
//            all-gather ring inside each host
// Every rank ends with the same bits: each sum is formed once (by a shard's
// owner or a tree's root) and copied to the others.
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dist/Communicator.h"

namespace dfc::dist {

enum class AllreduceAlgorithm { Mpi, Ring, Tree, Ring2d };

std::optional<AllreduceAlgorithm> parseAllreduceAlgorithm(std::string_view name);
std::string_view allreduceAlgorithmName(AllreduceAlgorithm algorithm);
std::string allreduceAlgorithmList();  // "mpi, ring, tree, 2d-ring"

// One phase of one allreduce call ("reduce-scatter", "broadcast"...), for the trace.
struct AllreducePhase {
  std::string name;
  std::chrono::steady_clock::time_point start, end;
};
using PhaseLog = std::vector<AllreducePhase>;

// The tree's pipeline chunk: 64 Ki floats (256 KiB), NCCL's order of size.
constexpr size_t kTreeChunkFloats = 64 * 1024;

// Each sums `data` over every rank in place; `log` (may be null) gets the phases.
Status ringAllreduceSum(Communicator& comm, std::span<float> data, PhaseLog* log);
Status treeAllreduceSum(Communicator& comm, std::span<float> data, size_t chunkFloats, PhaseLog* log);
// `ranksPerHost` must divide the world size; ranks h*L .. h*L+L-1 share host h.
Status ring2dAllreduceSum(Communicator& comm, std::span<float> data, int ranksPerHost, PhaseLog* log);

// The parent (-1 at the root) and children of `rank` in one tree of the double
// binary tree (`which` 0 or 1), over `worldSize` ranks.
struct TreeLinks {
  int parent = -1;
  std::vector<int> children;
};
TreeLinks doubleTreeLinks(int worldSize, int rank, int which);

struct AllreduceSettings {
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::Mpi;
  int ranksPerHost = 0;  // 2d-ring: 0 = the hosts MPI reports (MPI_COMM_TYPE_SHARED)
  size_t treeChunkFloats = kTreeChunkFloats;
};

// A Communicator whose allreduceAverage runs the chosen algorithm over
// `inner` (which it forwards everything else to) and keeps each call's phases
// until taken. Made on every rank at once: finding the hosts is collective.
class AllreduceCommunicator final : public Communicator {
 public:
  static Expected<std::unique_ptr<AllreduceCommunicator>> make(Communicator& inner, const AllreduceSettings& settings);

  int rank() const override { return m_inner.rank(); }
  int worldSize() const override { return m_inner.worldSize(); }
  Status allreduceAverage(std::span<float> data) override;
  Expected<std::vector<uint64_t>> allgather(uint64_t value) override { return m_inner.allgather(value); }
  Expected<std::vector<std::string>> gatherToRoot(const std::string& text) override { return m_inner.gatherToRoot(text); }
  std::string describe() const override;
  Expected<Ticket> postSend(int to, int tag, std::span<const float> data) override { return m_inner.postSend(to, tag, data); }
  Expected<Ticket> postRecv(int from, int tag, std::span<float> data) override { return m_inner.postRecv(from, tag, data); }
  Status wait(std::span<const Ticket> tickets) override { return m_inner.wait(tickets); }
  Expected<int> ranksPerHost() override { return m_settings.ranksPerHost; }

  AllreduceAlgorithm algorithm() const { return m_settings.algorithm; }
  int hosts() const { return worldSize() / m_settings.ranksPerHost; }
  PhaseLog takePhases() { return std::exchange(m_phases, {}); }
  std::string note() const { return m_note; }  // e.g. why 2d-ring fell back to one rank per host

 private:
  AllreduceCommunicator(Communicator& inner, const AllreduceSettings& settings) : m_inner(inner), m_settings(settings) {}
  Communicator& m_inner;
  AllreduceSettings m_settings;  // ranksPerHost resolved (>= 1)
  PhaseLog m_phases;
  std::string m_note;
};

}  // namespace dfc::dist
