#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "dist/Communicator.h"
#include "RankThreads.h"

using namespace dfc::dist;
using dfc::test::onEveryRank;

TEST_CASE("in-process allreduce averages every rank's buffer and all ranks get the same values", "[dist]") {
  InProcessGroup group(3);
  std::vector<std::vector<float>> buffers = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  onEveryRank(group, [&](Communicator& c) {
    for (int repeat = 0; repeat < 50; ++repeat) {  // back-to-back collectives must not overwrite each other
      std::vector<float> mine = buffers[static_cast<size_t>(c.rank())];
      REQUIRE(c.allreduceAverage(mine));
      if (repeat == 49) buffers[static_cast<size_t>(c.rank())] = mine;
    }
  });
  for (const auto& b : buffers) CHECK(b == std::vector<float>{4, 5, 6});
}

TEST_CASE("in-process allgather and gatherToRoot keep rank order", "[dist]") {
  InProcessGroup group(2);
  std::vector<std::vector<uint64_t>> gathered(2);
  std::vector<std::vector<std::string>> texts(2);
  onEveryRank(group, [&](Communicator& c) {
    auto r = static_cast<size_t>(c.rank());
    gathered[r] = *c.allgather(10 + r);
    texts[r] = *c.gatherToRoot("rank" + std::to_string(r));
  });
  CHECK(gathered[0] == std::vector<uint64_t>{10, 11});
  CHECK(gathered[1] == std::vector<uint64_t>{10, 11});
  CHECK(texts[0] == std::vector<std::string>{"rank0", "rank1"});
  CHECK(texts[1].empty());
}

TEST_CASE("in-process allreduce refuses buffers of different sizes", "[dist]") {
  InProcessGroup group(2);
  std::vector<bool> ok(2);
  onEveryRank(group, [&](Communicator& c) {
    std::vector<float> mine(c.rank() == 0 ? 3 : 4, 1.0f);
    ok[static_cast<size_t>(c.rank())] = static_cast<bool>(c.allreduceAverage(mine));
  });
  CHECK_FALSE((ok[0] && ok[1]));
}

TEST_CASE("a world of one leaves allreduce data alone and is not an MPI launch", "[dist]") {
  auto solo = makeSoloCommunicator();
  std::vector<float> data = {1.5f, -2.0f};
  REQUIRE(solo->allreduceAverage(data));
  CHECK(data == std::vector<float>{1.5f, -2.0f});
  CHECK(solo->worldSize() == 1);
}
