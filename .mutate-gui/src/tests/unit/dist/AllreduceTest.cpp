#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <thread>
#include <vector>

#include "RankThreads.h"
#include "dist/Allreduce.h"

using namespace dfc;
using namespace dfc::dist;
using dfc::test::onEveryRank;

namespace {

// Each rank's buffer: small integers (exact sums in any order) or random floats.
std::vector<std::vector<float>> inputs(int ranks, size_t n, bool integers) {
  std::mt19937 rng(static_cast<unsigned>(ranks * 7919 + n));
  std::uniform_int_distribution<int> small(-50, 50);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::vector<std::vector<float>> out(static_cast<size_t>(ranks), std::vector<float>(n));
  for (auto& buffer : out)
    for (float& v : buffer) v = integers ? static_cast<float>(small(rng)) : real(rng);
  return out;
}

// Every rank's result of `settings` (over an in-process group), and the group's plain average.
struct Outcome {
  std::vector<std::vector<float>> results;
  std::vector<std::vector<float>> reference;
  std::vector<std::string> errors;
};

Outcome runAll(int ranks, const std::vector<std::vector<float>>& in, const AllreduceSettings& settings) {
  Outcome o{in, in, std::vector<std::string>(static_cast<size_t>(ranks))};
  InProcessGroup group(ranks);
  onEveryRank(group, [&](Communicator& c) {
    const auto r = static_cast<size_t>(c.rank());
    if (!c.allreduceAverage(o.reference[r])) o.errors[r] = "reference failed";
    auto algo = AllreduceCommunicator::make(c, settings);
    if (!algo) {
      o.errors[r] = algo.error().message();
      return;
    }
    for (int repeat = 0; repeat < 2; ++repeat) {  // back to back: the second call must not see the first's messages
      std::vector<float> mine = in[r];
      if (auto st = (*algo)->allreduceAverage(mine); !st) o.errors[r] = st.error().message();
      o.results[r] = mine;
    }
  });
  return o;
}

std::vector<AllreduceSettings> everyAlgorithm(int ranks) {
  std::vector<AllreduceSettings> out = {
      {AllreduceAlgorithm::Ring, 0, kTreeChunkFloats},
      {AllreduceAlgorithm::Tree, 0, kTreeChunkFloats},
      {AllreduceAlgorithm::Tree, 0, 3},  // many chunks: the pipeline, and halves not divisible by the chunk
      {AllreduceAlgorithm::Ring2d, 0, kTreeChunkFloats},  // one host
      {AllreduceAlgorithm::Ring2d, 1, kTreeChunkFloats},  // one rank per host
  };
  if (ranks == 4) out.push_back({AllreduceAlgorithm::Ring2d, 2, kTreeChunkFloats});  // 2 hosts x 2
  return out;
}

std::string label(const AllreduceSettings& s) {
  return std::string(allreduceAlgorithmName(s.algorithm)) + " ranks-per-host " + std::to_string(s.ranksPerHost) +
         " chunk " + std::to_string(s.treeChunkFloats);
}

}  // namespace

TEST_CASE("ring and tree and 2d-ring average like the plain allreduce for 2 3 and 4 ranks with odd sizes", "[dist]") {
  for (int ranks : {2, 3, 4})
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{1001}, size_t{4099}})
      for (const AllreduceSettings& settings : everyAlgorithm(ranks))
        for (bool integers : {true, false}) {
          INFO(ranks << " ranks, " << n << " floats, " << label(settings) << (integers ? ", integers" : ", random"));
          const Outcome o = runAll(ranks, inputs(ranks, n, integers), settings);
          for (const auto& e : o.errors) REQUIRE(e.empty());
          for (int r = 0; r < ranks; ++r) {
            const auto& got = o.results[static_cast<size_t>(r)];
            const auto& want = o.reference[static_cast<size_t>(r)];
            REQUIRE(got.size() == want.size());
            CHECK(got == o.results[0]);  // the same bits on every rank
            if (integers) {
              CHECK(got == want);  // exact sums, the same scaling: bit for bit
            } else {
              for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-6));
            }
          }
        }
}

TEST_CASE("the two trees of the double binary tree are trees over every rank and no rank is inner in both", "[dist]") {
  for (int ranks = 1; ranks <= 17; ++ranks) {
    INFO(ranks << " ranks");
    std::vector<int> inner(static_cast<size_t>(ranks), 0);
    for (int which = 0; which < 2; ++which) {
      int roots = 0;
      std::vector<int> childOf(static_cast<size_t>(ranks), -1);
      for (int r = 0; r < ranks; ++r) {
        const TreeLinks links = doubleTreeLinks(ranks, r, which);
        if (links.parent < 0) ++roots;
        CHECK(links.children.size() <= 2);
        if (!links.children.empty()) ++inner[static_cast<size_t>(r)];
        for (int c : links.children) {
          REQUIRE(c >= 0);
          REQUIRE(c < ranks);
          CHECK(childOf[static_cast<size_t>(c)] == -1);
          childOf[static_cast<size_t>(c)] = r;
          CHECK(doubleTreeLinks(ranks, c, which).parent == r);
        }
      }
      CHECK(roots == 1);
      for (int r = 0; r < ranks; ++r) {  // every rank reaches the root
        int at = r, hops = 0;
        while (doubleTreeLinks(ranks, at, which).parent >= 0 && hops <= ranks) {
          at = doubleTreeLinks(ranks, at, which).parent;
          ++hops;
        }
        CHECK(hops <= ranks);
      }
    }
    for (int r = 0; r < ranks; ++r) CHECK(inner[static_cast<size_t>(r)] <= 1);
  }
}

TEST_CASE("2d-ring refuses a ranks-per-host that does not divide the ranks and an unknown name lists the known ones",
          "[dist]") {
  InProcessGroup group(3);
  std::vector<std::string> errors(3);
  onEveryRank(group, [&](Communicator& c) {
    auto made = AllreduceCommunicator::make(c, {AllreduceAlgorithm::Ring2d, 2, kTreeChunkFloats});
    if (!made) errors[static_cast<size_t>(c.rank())] = made.error().message();
  });
  for (const auto& e : errors) CHECK(e == "--ranks-per-host 2: does not divide the 3 ranks");
  CHECK_FALSE(parseAllreduceAlgorithm("butterfly"));
  CHECK(parseAllreduceAlgorithm("2d-ring") == AllreduceAlgorithm::Ring2d);
  CHECK(allreduceAlgorithmList() == "mpi, ring, tree, 2d-ring");
}

TEST_CASE("each algorithm logs its phases in order", "[dist]") {
  InProcessGroup group(4);
  std::vector<std::vector<std::string>> names(3);
  onEveryRank(group, [&](Communicator& c) {
    const AllreduceSettings settings[] = {{AllreduceAlgorithm::Ring, 0, kTreeChunkFloats},
                                          {AllreduceAlgorithm::Tree, 0, kTreeChunkFloats},
                                          {AllreduceAlgorithm::Ring2d, 2, kTreeChunkFloats}};
    for (size_t i = 0; i < 3; ++i) {
      auto algo = AllreduceCommunicator::make(c, settings[i]);
      REQUIRE(algo);
      std::vector<float> data(10, 1.0f);
      REQUIRE((*algo)->allreduceAverage(data));
      PhaseLog phases = (*algo)->takePhases();
      if (c.rank() != 0) continue;
      for (const auto& p : phases) {
        names[i].push_back(p.name);
        CHECK(p.end >= p.start);
      }
      CHECK((*algo)->takePhases().empty());
    }
  });
  CHECK(names[0] == std::vector<std::string>{"reduce-scatter", "all-gather"});
  CHECK(names[1] == std::vector<std::string>{"reduce", "broadcast"});
  CHECK(names[2] == std::vector<std::string>{"reduce-scatter in host", "reduce-scatter across hosts",
                                             "all-gather across hosts", "all-gather in host"});
}
