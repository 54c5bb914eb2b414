// sumLoop (kernels/KernelFamilies.h), the sum behind global_avg_pool and the
// batch-norm statistics: 16 lanes, each in index order, then the lanes, then
// the tail. Exact sums at the lane boundaries, and the lane order pinned by a
// sum whose float result depends on it.
#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

#include "runtime/kernels/KernelFamilies.h"

using dfc::runtime::kernels::sumLoop;

TEST_CASE("sumLoop is exact on small integers at every length around the 16 lanes", "[kernels][sum]") {
  for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    std::iota(x.begin(), x.end(), 1.0f);
    CHECK(sumLoop(x.data(), n) == static_cast<float>(n * (n + 1) / 2));
  }
}

TEST_CASE("sumLoop adds element i into lane i mod 16, lanes before the tail", "[kernels][sum]") {
  // Index order would lose every 1 after 1e8 (its float spacing is 8) and
  // return 15; lane 0 cancels 1e8 against -1e8 first, so every 1 survives.
  std::vector<float> x(32, 1.0f);
  x[0] = 1e8f;
  x[16] = -1e8f;
  CHECK(sumLoop(x.data(), 32) == 30.0f);
  // The tail comes after the lanes: 1e8 from the lanes, then -1e8, then 1
  // (the tail first would give -1e8 + 1 = -1e8, then 0).
  std::vector<float> y(18, 0.0f);
  y[0] = 1e8f;
  y[16] = -1e8f;
  y[17] = 1.0f;
  CHECK(sumLoop(y.data(), 18) == 1.0f);
}
