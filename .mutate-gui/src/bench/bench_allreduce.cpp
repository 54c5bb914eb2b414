// Allreduce per algorithm (dfc run --allreduce) on this machine, 1 KB to 64 MB
// buffers, beside the cost model's estimate for the modelled link (sn30's
// dp link between hosts, PCIe inside one). Run under mpirun:
//   mpirun -np 2 build/bench/bench_allreduce      (started alone, it starts itself so)
// Each figure is the median of several calls, each after an allgather that
// lines the ranks up; rank 0 prints one row per size.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "arch/CollectiveModel.h"
#include "dist/Allreduce.h"

using namespace dfc;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_allreduce: %s\n", what.c_str());
  std::exit(1);
}

double medianUs(dist::Communicator& comm, dist::Communicator& algo, std::vector<float>& data, int reps) {
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    if (!comm.allgather(0)) die("allgather failed");
    const auto t0 = std::chrono::steady_clock::now();
    if (auto st = algo.allreduceAverage(data); !st) die(st.error().message());
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
  return us[static_cast<size_t>(reps / 2)];
}

std::string sizeText(size_t bytes) {
  if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MB";
  return std::to_string(bytes >> 10) + " KB";
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  if (!dist::launchedByMpiLauncher()) {
    const std::string cmd = std::string(DFC_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 2 " + argv[0];
    return std::system(cmd.c_str()) == 0 ? 0 : 1;
  }
  auto made = dist::makeMpiCommunicator();
  if (!made) die(made.error().message());
  dist::Communicator& comm = **made;
  const dist::AllreduceAlgorithm algorithms[] = {dist::AllreduceAlgorithm::Mpi, dist::AllreduceAlgorithm::Ring,
                                                 dist::AllreduceAlgorithm::Tree, dist::AllreduceAlgorithm::Ring2d};
  std::vector<std::unique_ptr<dist::AllreduceCommunicator>> algos;
  for (auto a : algorithms) {
    auto algo = dist::AllreduceCommunicator::make(comm, {a, 0, dist::kTreeChunkFloats});
    if (!algo) die(algo.error().message());
    algos.push_back(std::move(*algo));
  }
  auto arch = arch::loadArch("sn30");
  if (!arch) die(arch.error().message());
  const arch::AllreduceLinks links = arch::allreduceLinks(*arch);
  const int p = comm.worldSize(), perHost = p / algos.back()->hosts();
  if (comm.rank() == 0) {
    std::printf("allreduce of float buffers, %d ranks (%s); measured: median us on this machine; est: cost model us for "
                "sn30 (dp link %.0f GB/s, %.0f us; host link %.0f GB/s, %.0f us; 2d-ring as %d hosts x %d)\n",
                p, comm.describe().c_str(), links.gbps, links.latencyUs, links.hostGbps, links.hostLatencyUs,
                algos.back()->hosts(), perHost);
    std::printf("%8s", "size");
    for (auto a : algorithms) std::printf(" | %7s meas    est", std::string(dist::allreduceAlgorithmName(a)).c_str());
    std::printf("\n");
  }
  for (size_t bytes = 1024; bytes <= (64u << 20); bytes *= 4) {
    std::vector<float> data(bytes / sizeof(float), 1.0f);
    const int reps = static_cast<int>(std::clamp<size_t>((16u << 20) / bytes, 5, 101));
    std::vector<double> measured;
    for (auto& algo : algos) measured.push_back(medianUs(comm, *algo, data, reps));
    if (comm.rank() != 0) continue;
    std::printf("%8s", sizeText(bytes).c_str());
    for (size_t i = 0; i < algos.size(); ++i) {
      const double est = arch::estimateAllreduceUs(dist::allreduceAlgorithmName(algorithms[i]), static_cast<double>(bytes),
                                                   p, perHost, links, dist::kTreeChunkFloats * sizeof(float));
      std::printf(" | %12.1f %8.1f", measured[i], est);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
