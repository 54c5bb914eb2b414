// The pointwise kernel reading x times a squeeze-and-excitation gate
// (InputScale): the bits of the mul op's product run through the same kernel,
// for a gate per image and one for all images, batch 3 at 1, 2 and 3 threads,
// on 48-pixel tiles, a masked vector and the column tail (163 pixels), 5 input
// channels (the column path's four phases and a rest) and 9 outputs (a part panel).
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "RuntimeTestUtil.h"
#include "runtime/kernels/Pointwise.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime::kernels;
using dfc::runtime::test::uniformFloats;

TEST_CASE("the pointwise kernel applies a gate on its input with the mul op's bits", "[kernels][conv][gate]") {
  if (!pointwiseConvAvailable()) {
    WARN("no AVX-512F: the pointwise kernel does not run here");
    return;
  }
  std::mt19937 rng(71);
  const PointwiseGeometry g{3, 5, 9, 163};
  const auto x = uniformFloats(static_cast<size_t>(g.n * g.c * g.pixels), rng, -4, 4);
  const auto w = uniformFloats(static_cast<size_t>(g.o * g.c), rng, -1, 1), bias = uniformFloats(9, rng, -1, 1);
  const auto gates = uniformFloats(static_cast<size_t>(g.n * g.c), rng, 0, 1);
  const ConvEpilogue relu{true, ConvActivation::Relu, 0, 0, false};
  for (int64_t imageStride : {g.c, int64_t{0}})
    for (int threads : {1, 2, 3}) {
      INFO((imageStride ? "a gate per image" : "one gate") << " at " << threads << " threads");
      support::ThreadPool pool(threads);
      std::vector<float> product(x.size()), want(static_cast<size_t>(g.n * g.o * g.pixels)), got(want.size());
      for (int64_t b = 0; b < g.n; ++b)
        for (int64_t k = 0; k < g.c; ++k)
          for (int64_t p = 0; p < g.pixels; ++p) {
            const auto at = static_cast<size_t>((b * g.c + k) * g.pixels + p);
            product[at] = x[at] * gates[static_cast<size_t>(b * imageStride + k)];
          }
      PointwiseConv plain(g), gated(g);
      REQUIRE(plain.run(pool, relu, product.data(), w.data(), bias.data(), nullptr, want.data(), true).ok());
      REQUIRE(
          gated.run(pool, relu, x.data(), w.data(), bias.data(), nullptr, got.data(), true, {gates.data(), imageStride})
              .ok());
      CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
      // The gate changed the product: not a kernel that ignores it.
      std::vector<float> ungated(want.size());
      REQUIRE(plain.run(pool, relu, x.data(), w.data(), bias.data(), nullptr, ungated.data(), true).ok());
      CHECK(std::memcmp(want.data(), ungated.data(), want.size() * sizeof(float)) != 0);
    }
}
