#pragma once
// Runs a body once per rank of an in-process group, each on its own thread.
#include <thread>
#include <vector>

#include "dist/Communicator.h"

namespace dfc::test {

template <typename Body>
void onEveryRank(dist::InProcessGroup& group, Body body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < group.size(); ++r) threads.emplace_back([&, r] { body(group.rank(r)); });
  for (auto& t : threads) t.join();
}

}  // namespace dfc::test
