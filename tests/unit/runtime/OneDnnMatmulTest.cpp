// A matmul with b packed once on oneDNN's primitive (kernels/OneDnnMatmul.h):
// against a double-precision product with b stored either way, strided
// operands, a bias or none, at column counts around its 64-column pieces
// (1, 63, 64, 65, 200) and cut for 1, 2 and 3 pieces; the same bits for the
// same width on any pool; b read on the first call only (the contract that
// lets it pack); and the executor's choice: an inference step's matmul on a
// Param gives the reference's values.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/kernels/OneDnnMatmul.h"

using namespace dfc;
using namespace dfc::runtime::kernels;

namespace {

struct Operands {
  MatmulShape s;
  std::vector<float> a, b, bias, c;

  explicit Operands(const MatmulShape& shape) : s(shape) {
    std::mt19937 rng(static_cast<unsigned>(s.m * 7 + s.n * 13 + s.k));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, int64_t count) {
      v.resize(static_cast<size_t>(count));
      for (float& x : v) x = u(rng);
    };
    fill(a, s.m * s.lda);
    fill(b, s.tb ? s.n * s.ldb : s.k * s.ldb);
    fill(bias, s.n);
    fill(c, s.m * s.ldc);
  }
  double expected(int64_t i, int64_t j) const {
    double sum = s.bias ? bias[static_cast<size_t>(j)] : 0.0;
    for (int64_t p = 0; p < s.k; ++p)
      sum +=
          double(a[static_cast<size_t>(i * s.lda + p)]) * b[static_cast<size_t>(s.tb ? j * s.ldb + p : p * s.ldb + j)];
    return sum;
  }
  // Largest relative error over c; columns past n (ldc's padding) must keep their values.
  double worstError(const std::vector<float>& before) const {
    double worst = 0;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.ldc; ++j) {
        const size_t at = static_cast<size_t>(i * s.ldc + j);
        if (j >= s.n) {
          if (c[at] != before[at]) return 1e30;
          continue;
        }
        const double e = expected(i, j), err = std::abs(c[at] - e) / (1 + std::abs(e));
        worst = std::isnan(err) ? 1e30 : std::max(worst, err);
      }
    return worst;
  }
};

MatmulShape shapeOf(int64_t m, int64_t n, int64_t k, bool tb, bool bias) {
  // Every operand strided: rows 3, 5 and 2 floats longer than they need.
  return MatmulShape{m, n, k, tb, k + 3, (tb ? k : n) + 5, n + 2, bias};
}

}  // namespace

TEST_CASE("a prepacked matmul equals a double product: b either way, strided, bias or not, 1-3 pieces",
          "[runtime][gemm]") {
  if (!prepackedMatmulAvailable()) return;  // the executor never chooses it there
  support::ThreadPool pool(3);
  for (bool tb : {false, true})
    for (bool bias : {false, true})
      for (int64_t n : {1, 63, 64, 65, 200})
        for (int64_t m : {2, 17})
          for (int64_t k : {1, 70})
            for (int width : {1, 2, 3}) {
              INFO("tb " << tb << " bias " << bias << " m " << m << " n " << n << " k " << k << " width " << width);
              Operands o(shapeOf(m, n, k, tb, bias));
              const std::vector<float> before = o.c;
              OneDnnMatmul matmul(o.s);
              REQUIRE(matmul.run(pool, width, o.a.data(), o.b.data(), o.bias.data(), o.c.data()).ok());
              CHECK(o.worstError(before) < 1e-5);
            }
}

TEST_CASE("a prepacked matmul: the same bits for a width on any pool, and b read on the first call only",
          "[runtime][gemm][threads]") {
  if (!prepackedMatmulAvailable()) return;
  support::ThreadPool one(1), two(2), three(3);
  Operands o(shapeOf(37, 300, 150, true, true));
  OneDnnMatmul matmul(o.s);
  REQUIRE(matmul.run(one, 3, o.a.data(), o.b.data(), o.bias.data(), o.c.data()).ok());
  CHECK(matmul.implementation() != "");
  const std::vector<float> first = o.c;
  CHECK(o.worstError(first) < 1e-5);
  // b changed in place: the packed copy is what it multiplies by, by contract (b never changes).
  const std::vector<float> b = o.b;
  for (float& x : o.b) x = 0.0f;
  for (support::ThreadPool* pool : {&one, &two, &three}) {
    std::fill(o.c.begin(), o.c.end(), -7.0f);
    REQUIRE(matmul.run(*pool, 3, o.a.data(), o.b.data(), o.bias.data(), o.c.data()).ok());
    for (size_t i = 0; i < o.c.size(); ++i)
      if (static_cast<int64_t>(i) % o.s.ldc < o.s.n) CHECK(std::memcmp(&o.c[i], &first[i], sizeof(float)) == 0);
  }
  // A new width cuts new pieces, packed from b as it is now.
  REQUIRE(matmul.run(two, 2, o.a.data(), o.b.data(), o.bias.data(), o.c.data()).ok());
  for (int64_t j = 0; j < o.s.n; ++j) CHECK(o.c[static_cast<size_t>(j)] == o.bias[static_cast<size_t>(j)]);
  o.b = b;
}
