// The per-hypersection cache (partition/HypersectionCache.h) at its edges:
// hypersection 0 is a hypersection like any other (stored, then reused), a
// negative id is computed every time and never stored, an inserted result is
// found, and the stats count computations, reuses and the time reuse saved.
#include <catch2/catch.hpp>

#include "partition/HypersectionCache.h"

using dfc::partition::HypersectionCache;

TEST_CASE("hypersection cache: id 0 is stored and reused, a negative id never is", "[partition][cache][boundary]") {
  HypersectionCache<int> cache;
  int calls = 0;
  auto compute = [&] { return ++calls * 10; };
  CHECK(cache.getOrCompute(0, compute) == 10);
  CHECK(cache.getOrCompute(0, compute) == 10);  // reused: not computed again
  CHECK(calls == 1);
  CHECK(cache.getOrCompute(-1, compute) == 20);
  CHECK(cache.getOrCompute(-1, compute) == 30);  // not a repeat: computed each time
  CHECK(calls == 3);
  CHECK(cache.find(-1) == nullptr);
  REQUIRE(cache.find(0) != nullptr);
  CHECK(*cache.find(0) == 10);
  CHECK(cache.stats().computed == 3);
  CHECK(cache.stats().reused == 3);  // one getOrCompute hit and two finds
  cache.insert(5, 55, 2.5);
  REQUIRE(cache.find(5) != nullptr);
  CHECK(*cache.find(5) == 55);
  CHECK(cache.stats().computed == 4);
  CHECK(cache.stats().computeMs >= 2.5);
  CHECK(cache.stats().msSavedEstimate >= 2 * 2.5);  // two finds of hypersection 5
  cache.insert(-3, 1, 1.0);
  CHECK(cache.find(-3) == nullptr);
  CHECK(cache.getOrCompute(1, compute) == 40);
  CHECK(cache.getOrCompute(1, [] { return -1; }) == 40);
}
