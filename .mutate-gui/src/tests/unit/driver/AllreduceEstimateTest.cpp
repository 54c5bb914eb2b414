#include <catch2/catch.hpp>

#include "arch/CollectiveModel.h"
#include "dist/Allreduce.h"

using namespace dfc;
using dfc::dist::kTreeChunkFloats;

TEST_CASE("the cost model's allreduce estimates follow their step counts", "[driver]") {
  arch::AllreduceLinks links;  // 25 GB/s and 5 us between hosts, 32 GB/s and 1 us inside one
  const double chunk = kTreeChunkFloats * 4.0;
  // Ring: 2(p-1) steps of B/p: at 4 ranks and 1 MB, 6 x (5 us + 250 KB / 25 GB/s).
  CHECK(arch::estimateAllreduceUs("ring", 1e6, 4, 1, links, chunk) == Approx(6 * (5 + 10.0)));
  // Tree, one chunk: 2 x depth steps of latency (and the chunk through the link).
  const double small = arch::estimateAllreduceUs("tree", 1024, 16, 1, links, chunk);
  CHECK(small == Approx(2 * 4 * (5 + 1024.0 / 2 * 2 / 25e3)));
  CHECK(small < arch::estimateAllreduceUs("ring", 1024, 16, 1, links, chunk));  // latency-bound: the tree wins
  CHECK(arch::estimateAllreduceUs("ring", 64e6, 16, 1, links, chunk) <
        arch::estimateAllreduceUs("tree", 64e6, 16, 1, links, chunk));  // bandwidth-bound: the ring wins
  CHECK(arch::estimateAllreduceUs("mpi", 64e6, 16, 1, links, chunk) ==
        Approx(arch::estimateAllreduceUs("ring", 64e6, 16, 1, links, chunk)));
  // 2d-ring with one rank per host is the ring; with hosts of 4 the in-host rings run over the host link.
  CHECK(arch::estimateAllreduceUs("2d-ring", 1e6, 8, 1, links, chunk) ==
        Approx(arch::estimateAllreduceUs("ring", 1e6, 8, 1, links, chunk)));
  const double twoLevels = 2 * 3 * (1 + 250e3 / 32e3) + 2 * 1 * (5 + 125e3 / 25e3);
  CHECK(arch::estimateAllreduceUs("2d-ring", 1e6, 8, 4, links, chunk) == Approx(twoLevels));
  CHECK(arch::estimateAllreduceUs("ring", 1e6, 1, 1, links, chunk) == 0);
}
