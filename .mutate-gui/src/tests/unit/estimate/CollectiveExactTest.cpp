// The collective model worked by hand (arch/CollectiveModel.h's alpha-beta
// formulas): each allreduce algorithm on 4 ranks, the compile's ring,
// double tree and hierarchical estimates, the tree's chunk count at its
// boundary (a chunk exactly half the buffer, one byte less), the 2D ring with
// hosts of 2 and of 4, the all-gather, the default bucket and its clamps,
// and the links taken from an arch file.
#include <catch2/catch.hpp>

#include "arch/ArchSpec.h"
#include "arch/CollectiveModel.h"

using namespace dfc;

namespace {

Approx exact(double v) { return Approx(v).epsilon(1e-9).margin(1e-12); }

// 25 GB/s = 25e3 bytes per us and 5 us between hosts; 32 GB/s and 1 us inside one.
arch::AllreduceLinks links() { return {}; }

arch::ArchSpec dpArch(int chips) {
  arch::ArchSpec a;
  a.name = "dp";
  a.dpLinkGbps = 25;
  a.dpLinkLatencyUs = 5;
  a.pcieGbps = 16;
  a.chips = chips;
  return a;
}

}  // namespace

TEST_CASE("collectives exact: each runtime allreduce algorithm on 4 ranks", "[estimate][collective][exact]") {
  const double chunk = 256.0 * 1024;
  // Ring: 6 steps of 5 us, 6/4 x 1 MB through 25e3 bytes/us.
  CHECK(arch::estimateAllreduceUs("ring", 1e6, 4, 1, links(), chunk) == exact(30 + 60));
  // Tree: halves of 500000 bytes in chunks of 262144: 2 chunks; depth 2; a
  // step moves a chunk to each of two children: 2 x (2 + 2 - 1) x (5 + 524288 / 25e3).
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 4, 1, links(), chunk) == exact(6 * (5 + 20.97152)));
  // MPI: the better of the two.
  CHECK(arch::estimateAllreduceUs("mpi", 1e6, 4, 1, links(), chunk) == exact(90));
  // 2D ring, 2 hosts of 2: in-host 2 x 1 x (1 + 500000 / 32e3), across hosts a ring of 2 on 500000 bytes.
  CHECK(arch::estimateAllreduceUs("2d-ring", 1e6, 4, 2, links(), chunk) == exact(2 * (1 + 15.625) + (10 + 20)));
  // One host of 4: in-host only, 2 x 3 steps of 250000 bytes.
  CHECK(arch::estimateAllreduceUs("2d-ring", 1e6, 4, 4, links(), chunk) == exact(6 * (1 + 7.8125)));
  // One rank per host: the ring across hosts alone.
  CHECK(arch::estimateAllreduceUs("2d-ring", 1e6, 4, 1, links(), chunk) == exact(90));
  CHECK(arch::estimateAllreduceUs("nccl", 1e6, 4, 1, links(), chunk) == 0);
  CHECK(arch::estimateAllreduceUs("ring", 0, 4, 1, links(), chunk) == 0);
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 1, 1, links(), chunk) == 0);
}

TEST_CASE("collectives exact: the tree's chunks at the boundary of half the buffer", "[estimate][collective][exact]") {
  // A chunk of exactly half the buffer: one chunk per tree, depth 2, two children.
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 4, 1, links(), 5e5) == exact(2 * 2 * (5 + 1e6 / 25e3)));
  // One byte less: two chunks (the second of one byte is still a step).
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 4, 1, links(), 5e5 - 1) ==
        exact(2 * 3 * (5 + 2 * (5e5 - 1) / 25e3)));
  // A chunk larger than the half is the half.
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 4, 1, links(), 4e6) == exact(2 * 2 * (5 + 1e6 / 25e3)));
  // Two ranks: depth 1, one child each.
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 2, 1, links(), 5e5) == exact(2 * 1 * (5 + 5e5 / 25e3)));
  // Eight ranks, four chunks of 125000: depth 3, 2 x (3 + 4 - 1) steps.
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 8, 1, links(), 125000) == exact(12 * (5 + 250000 / 25e3)));
  // Five ranks: depth ceil(log2 5) = 3.
  CHECK(arch::estimateAllreduceUs("tree", 1e6, 5, 1, links(), 5e5) == exact(2 * 3 * (5 + 1e6 / 25e3)));
}

TEST_CASE("collectives exact: the all-gather is p - 1 steps of a p-th of the buffer", "[estimate][collective][exact]") {
  CHECK(arch::estimateAllgatherUs(1e6, 4, links()) == exact(3 * (5 + 250000 / 25e3)));
  CHECK(arch::estimateAllgatherUs(1e6, 2, links()) == exact(1 * (5 + 500000 / 25e3)));
  CHECK(arch::estimateAllgatherUs(1e6, 1, links()) == 0);
  CHECK(arch::estimateAllgatherUs(0, 4, links()) == 0);
}

TEST_CASE("collectives exact: the compile's ring, double tree and hierarchical estimates, fastest first", "[estimate][collective][exact]") {
  auto one = arch::allreduceEstimates(dpArch(1), 1e6, 4);
  REQUIRE(one.size() == 2);  // a one-chip replica has no hierarchy
  CHECK(one[0].algorithm == "ring");
  CHECK(one[0].us == exact(6 * 5 + 1.5e6 / 25e3));
  CHECK(one[1].algorithm == "double-tree");
  CHECK(one[1].us == exact(2 * 2 * 5 + 2e6 / 25e3));
  // Two chips per replica: reduce-scatter and all-gather over PCIe (16e3
  // bytes/us, 1 us a message), then a ring across replicas on half the buffer.
  auto two = arch::allreduceEstimates(dpArch(2), 1e6, 4);
  REQUIRE(two.size() == 3);
  CHECK(two[2].algorithm == "hierarchical");
  CHECK(two[2].us == exact((2 * 1 * 1 + 1e6 / 16e3) + (6 * 5 + 1.5 * 5e5 / 25e3)));
  // Three replicas: ring 4 steps of a third, tree ceil(log2 3) = 2 levels.
  auto three = arch::allreduceEstimates(dpArch(1), 1e6, 3);
  CHECK(three[0].us == exact(4 * 5 + 4.0 / 3 * 1e6 / 25e3));
  CHECK(three[1].us == exact(2 * 2 * 5 + 2e6 / 25e3));
  // Small buffers on 16 replicas: the tree's 8 latencies beat the ring's 30.
  auto best = arch::bestAllreduce(dpArch(1), 4096, 16);
  CHECK(best.algorithm == "double-tree");
  CHECK(best.us == exact(2 * 4 * 5 + 8192 / 25e3));
  // A world of one is estimated as two.
  CHECK(arch::allreduceEstimates(dpArch(1), 1e6, 1)[0].us == exact(2 * 5 + 1e6 / 25e3));
}

TEST_CASE("collectives exact: the default bucket and its clamps", "[estimate][collective][exact]") {
  // 4 replicas: ring latency 6 x 5 = 30 us; 80% bandwidth needs 120 us of
  // transfer: 120 x 25e3 x 4 / 6 = 2e6 bytes.
  CHECK(arch::chooseBucketBytes(dpArch(1), 1e9, 4) == exact(2e6));
  CHECK(arch::chooseBucketBytes(dpArch(1), 1e9, 4, 0.5) == exact(5e5));
  CHECK(arch::chooseBucketBytes(dpArch(1), 2e6, 4) == exact(2e6));  // exactly the gradients
  CHECK(arch::chooseBucketBytes(dpArch(1), 1e6, 4) == exact(1e6));  // no larger than the gradients
  CHECK(arch::chooseBucketBytes(dpArch(1), 100, 4) == 4096);       // never below a page
}

TEST_CASE("collectives exact: links from the arch file", "[estimate][collective][exact]") {
  arch::ArchSpec a = dpArch(1);
  a.dpLinkGbps = 50;
  a.dpLinkLatencyUs = 3;
  const auto dp = arch::allreduceLinks(a);
  CHECK(dp.gbps == 50);
  CHECK(dp.latencyUs == 3);
  CHECK(dp.hostGbps == 16);
  CHECK(dp.hostLatencyUs == 1);
  a.pcieGbps = 0;
  CHECK(arch::allreduceLinks(a).hostGbps == 32);  // no PCIe figure: the default
  a.pcieGbps = 16;
  a.chipLinkLatencyUs = 0.25;
  auto chip = arch::chipLinks(a);  // no chip link: PCIe for both
  CHECK(chip.gbps == 16);
  CHECK(chip.hostGbps == 16);
  CHECK(chip.latencyUs == 0.25);
  CHECK(chip.hostLatencyUs == 0.25);
  a.chipLinkGbps = 100;
  chip = arch::chipLinks(a);
  CHECK(chip.gbps == 100);
  CHECK(arch::estimateAllgatherUs(4e6, 4, chip) == exact(3 * (0.25 + 1e6 / 100e3)));
}
