// Run under mpirun by test_mpi: each algorithm named on the command line
// ("ring", "tree", "2d-ring", "2d-ring:N" for N ranks per host) against
// MPI_Allreduce on the same buffers, for sizes that the rank count does not
// divide: bit for bit on small integers (exact sums in any order), within a
// float's rounding on random values, and the same bits on every rank. Rank 0
// prints one line per case and "ALL OK"; the exit status is 1 on any mismatch.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dist/Allreduce.h"

using namespace dfc;

namespace {

uint64_t hashOf(const std::vector<float>& v) {
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

std::vector<float> input(int rank, size_t n, bool integers) {
  std::mt19937 rng(static_cast<unsigned>(rank * 1000003 + n));
  std::uniform_int_distribution<int> small(-50, 50);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::vector<float> out(n);
  for (float& v : out) v = integers ? static_cast<float>(small(rng)) : real(rng);
  return out;
}

// Empty: this rank's result matches; else what differs.
std::string compare(const std::vector<float>& got, const std::vector<float>& want, bool integers) {
  for (size_t i = 0; i < got.size(); ++i) {
    const float tolerance = integers ? 0.0f : 1e-6f;
    if (!(std::abs(got[i] - want[i]) <= tolerance))
      return "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs MPI_Allreduce " + std::to_string(want[i]);
  }
  return {};
}

bool parseSpec(const std::string& spec, dist::AllreduceSettings& out) {
  const size_t colon = spec.find(':');
  auto algorithm = dist::parseAllreduceAlgorithm(spec.substr(0, colon));
  if (!algorithm) return false;
  out.algorithm = *algorithm;
  if (colon != std::string::npos) out.ranksPerHost = std::stoi(spec.substr(colon + 1));
  out.treeChunkFloats = 1000;  // small chunks: the tree's pipeline runs many rounds even on these buffers
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  auto comm = dist::makeMpiCommunicator();
  if (!comm) {
    std::fprintf(stderr, "%s\n", comm.error().message().c_str());
    return 1;
  }
  dist::Communicator& mpi = **comm;
  const int rank = mpi.rank();
  bool allOk = true;
  for (int a = 1; a < argc; ++a) {
    dist::AllreduceSettings settings;
    if (!parseSpec(argv[a], settings)) {
      std::fprintf(stderr, "unknown algorithm '%s'\n", argv[a]);
      return 1;
    }
    auto algo = dist::AllreduceCommunicator::make(mpi, settings);
    if (!algo) {
      std::fprintf(stderr, "%s\n", algo.error().message().c_str());
      return 1;
    }
    for (size_t n : {size_t{1}, size_t{5}, size_t{1001}, size_t{65537}})
      for (bool integers : {true, false}) {
        std::vector<float> want = input(rank, n, integers), got = want;
        std::string problem;
        if (!mpi.allreduceAverage(want)) problem = "MPI_Allreduce failed";
        if (auto st = (*algo)->allreduceAverage(got); !st) problem = st.error().message();
        if (problem.empty()) problem = compare(got, want, integers);
        auto hashes = mpi.allgather(hashOf(got));
        auto oks = mpi.allgather(problem.empty() ? 1 : 0);
        bool ok = hashes && oks;
        for (size_t r = 0; ok && r < hashes->size(); ++r) ok = (*hashes)[r] == (*hashes)[0] && (*oks)[r] == 1;
        if (!problem.empty()) std::fprintf(stderr, "rank %d, %s, %zu floats: %s\n", rank, argv[a], n, problem.c_str());
        if (rank == 0)
          std::printf("%s %s (%s), %zu floats, %d ranks%s\n", ok ? "ok" : "MISMATCH", argv[a],
                      (*algo)->describe().c_str(), n, mpi.worldSize(), integers ? ", integers" : ", random");
        allOk = allOk && ok;
      }
  }
  if (rank == 0 && allOk) std::printf("ALL OK\n");
  return allOk ? 0 : 1;
}
