#include "dist/Communicator.h"

#include <cstdlib>

namespace dfc::dist {
namespace {

class SoloCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int worldSize() const override { return 1; }
  Status allreduceAverage(std::span<float>) override { return {}; }
  Expected<std::vector<uint64_t>> allgather(uint64_t value) override { return std::vector<uint64_t>{value}; }
  Expected<std::vector<std::string>> gatherToRoot(const std::string& text) override {
    return std::vector<std::string>{text};
  }
  std::string describe() const override { return "single process"; }
  // A world of one has no peer to talk to: the algorithms never post in it.
  Expected<Ticket> postSend(int to, int, std::span<const float>) override { return noPeer(to); }
  Expected<Ticket> postRecv(int from, int, std::span<float>) override { return noPeer(from); }
  Status wait(std::span<const Ticket> tickets) override {
    if (tickets.empty()) return {};
    return makeError("single process: no transfer to wait for");
  }
  Expected<int> ranksPerHost() override { return 1; }

 private:
  static Error noPeer(int peer) { return makeError("single process: no rank " + std::to_string(peer) + " to talk to"); }
};

}  // namespace

std::unique_ptr<Communicator> makeSoloCommunicator() { return std::make_unique<SoloCommunicator>(); }

bool launchedByMpiLauncher() {
  // Open MPI's mpirun, then PMIx and PMI launchers (MPICH's hydra, Slurm's srun).
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

}  // namespace dfc::dist
