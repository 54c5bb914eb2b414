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
