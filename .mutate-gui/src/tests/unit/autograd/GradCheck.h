#pragma once
// Finite-difference checking of autograd against the reference interpreter.
#include <catch2/catch.hpp>
#include <functional>
#include <random>

#include "autograd/Autograd.h"
#include "frontend/GraphBuilder.h"
#include "ir/Graph.h"

namespace dfc::test {

// Uniform [-1, 1) tensor of `shape`, deterministic from `seed`.
ir::Tensor randomTensor(const ir::Shape& shape, uint32_t seed);
// Values with |v| >= 0.1, so a relu kink is never within eps.
ir::Tensor awayFromZero(const ir::Shape& shape, uint32_t seed);
// Pairwise distinct values (spacing 0.05), so maxpool never ties within eps.
ir::Tensor distinctValues(const ir::Shape& shape, uint32_t seed);

struct GradCheckResult {
  int checked = 0;
  int failed = 0;
  std::string firstFailure;
  std::string error;  // set if building or evaluating failed
};

// Builds params via `build` (which returns the op's output y), makes a scalar
// target (y itself if scalar, else sum(y * R) for a fixed random R), appends
// gradients with seed `seedValue` for every Param and compares each element with
// central differences of seedValue * target.
GradCheckResult gradCheck(const std::function<ir::ValueId(frontend::GraphBuilder&)>& build, double eps = 5e-3,
                          float seedValue = 1.0f);

// The test's verdict on a gradCheck: it ran, checked something and every element matched.
inline void requireGradientsMatch(const GradCheckResult& r) {
  INFO(r.error);
  REQUIRE(r.error.empty());
  INFO(r.firstFailure);
  CHECK(r.checked > 0);
  CHECK(r.failed == 0);
}

}  // namespace dfc::test
