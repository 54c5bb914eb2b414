// The allreduce algorithms at their boundaries (dist/Allreduce.h): buffers
// exactly divisible by the ranks (equal shards) and one float either side,
// fewer floats than ranks, a tree chunk of exactly half the buffer and one
// float either side, a chunk of one float, 5 and 8 ranks (trees that are not
// full), 2d-ring with hosts of 2 and 4 on 8 ranks. Inputs are small integers,
// so every rank must end with the exact average, bit for bit, each call.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "RankThreads.h"
#include "dist/Allreduce.h"

using namespace dfc;
using namespace dfc::dist;
using dfc::test::onEveryRank;

namespace {

// rank r's element i: (r + 1) * (i % 13 - 6): the sum over ranks is exact in float.
std::vector<float> buffer(int rank, size_t n, int call) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((rank + 1 + call) * (static_cast<int>(i % 13) - 6));
  return v;
}

// Runs `settings` on every rank for buffers of each size, twice back to back,
// and checks each result against the exact average.
void checkExact(int ranks, const AllreduceSettings& settings, const std::vector<size_t>& sizes) {
  InProcessGroup group(ranks);
  std::vector<std::string> errors(static_cast<size_t>(ranks));
  std::vector<std::vector<std::vector<float>>> got(static_cast<size_t>(ranks));
  onEveryRank(group, [&](Communicator& c) {
    const auto r = static_cast<size_t>(c.rank());
    auto algo = AllreduceCommunicator::make(c, settings);
    if (!algo) {
      errors[r] = algo.error().message();
      return;
    }
    for (size_t n : sizes)
      for (int call = 0; call < 2; ++call) {
        std::vector<float> mine = buffer(c.rank(), n, call);
        if (auto st = (*algo)->allreduceAverage(mine); !st) errors[r] = st.error().message();
        got[r].push_back(std::move(mine));
      }
  });
  for (const auto& e : errors) REQUIRE(e.empty());
  size_t k = 0;
  for (size_t n : sizes)
    for (int call = 0; call < 2; ++call, ++k) {
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (int r = 0; r < ranks; ++r) sum += buffer(r, n, call)[i];
        want[i] = static_cast<float>(sum / ranks);
      }
      INFO(ranks << " ranks, " << n << " floats, call " << call << ", " << allreduceAlgorithmName(settings.algorithm)
                 << " per host " << settings.ranksPerHost << " chunk " << settings.treeChunkFloats);
      for (int r = 0; r < ranks; ++r) {
        const auto& mine = got[static_cast<size_t>(r)][k];
        REQUIRE(mine.size() == n);
        for (size_t i = 0; i < n; ++i) REQUIRE(mine[i] == Approx(want[i]).margin(1e-6));
        CHECK(mine == got[0][k]);
      }
    }
}

}  // namespace

TEST_CASE("allreduce boundaries: the ring with buffers of exactly p shards and one float either side", "[dist][boundary]") {
  for (int ranks : {2, 4, 5, 8}) {
    std::vector<size_t> sizes;
    for (size_t mult : {size_t{1}, size_t{2}, size_t{3}})
      for (size_t n : {mult * ranks - 1, mult * ranks, mult * ranks + 1}) sizes.push_back(n);
    sizes.push_back(static_cast<size_t>(ranks) - 1);  // fewer floats than ranks: empty shards
    checkExact(ranks, {AllreduceAlgorithm::Ring, 0, kTreeChunkFloats}, sizes);
  }
}

TEST_CASE("allreduce boundaries: the tree with a chunk of exactly half the buffer and one float either side", "[dist][boundary]") {
  for (int ranks : {2, 3, 4, 5, 8}) {
    for (size_t chunk : {size_t{1}, size_t{4}, size_t{5}, size_t{6}}) {
      // Buffers whose halves are the chunk exactly, one float less and more, twice and three times it.
      std::vector<size_t> sizes{2 * chunk - 1, 2 * chunk, 2 * chunk + 1, 2 * chunk + 2, 4 * chunk, 6 * chunk + 1, 1};
      checkExact(ranks, {AllreduceAlgorithm::Tree, 0, chunk}, sizes);
    }
  }
}

TEST_CASE("allreduce boundaries: the 2d ring on 8 ranks in hosts of 2, 4 and 8, shard sizes at their edges", "[dist][boundary]") {
  for (int perHost : {1, 2, 4, 8}) {
    std::vector<size_t> sizes{1, 7, 8, 9, 15, 16, 17, 32, 33};
    checkExact(8, {AllreduceAlgorithm::Ring2d, perHost, kTreeChunkFloats}, sizes);
  }
  checkExact(6, {AllreduceAlgorithm::Ring2d, 3, kTreeChunkFloats}, {5, 6, 7, 17, 18, 19});
  checkExact(6, {AllreduceAlgorithm::Ring2d, 2, kTreeChunkFloats}, {5, 6, 7, 11, 12, 13});
}

TEST_CASE("allreduce boundaries: the double tree's links over 5 to 9 ranks are two spanning trees", "[dist][boundary]") {
  for (int ranks = 2; ranks <= 9; ++ranks)
    for (int which : {0, 1}) {
      int roots = 0;
      size_t edges = 0;
      for (int r = 0; r < ranks; ++r) {
        const TreeLinks l = doubleTreeLinks(ranks, r, which);
        roots += l.parent < 0;
        CHECK(l.children.size() <= 2);
        for (int child : l.children) {
          REQUIRE(child >= 0);
          REQUIRE(child < ranks);
          CHECK(doubleTreeLinks(ranks, child, which).parent == r);
          ++edges;
        }
        if (l.parent >= 0) {
          const auto kids = doubleTreeLinks(ranks, l.parent, which).children;
          CHECK(std::find(kids.begin(), kids.end(), r) != kids.end());
        }
      }
      INFO(ranks << " ranks, tree " << which);
      CHECK(roots == 1);
      CHECK(edges == static_cast<size_t>(ranks - 1));
    }
}
