// Matrix-vector products (kernels/Gemv.h), which sgemm hands to its own
// AVX-512 loop under --gemm auto: which calls it takes, each of them against
// a double-precision product at the row counts its loop branches on (15, 16,
// 17, 33: whole groups of 16 rows and the single rows after them) and depths
// (64, the least it takes, 100 with a tail, 1280), alpha and beta (beta 0
// never reads c), b's column read with a stride; through sgemm with a bias,
// and bit for bit the same however a split cuts the outputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "runtime/kernels/Gemv.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime::kernels;

namespace {

const bool kAvx512 = __builtin_cpu_supports("avx512f");

// One product: one output row (m = 1, b^T) or one output column (n = 1), operands random.
struct Product {
  bool row = true;  // m = 1 with b transposed; else n = 1
  bool tb = false;  // for a column: b transposed (its row 0), else b's column 0, ldb apart
  int64_t outputs = 0, k = 0;
  std::vector<float> a, b, c;
  int64_t lda = 0, ldb = 0, ldc = 0;

  Product(bool isRow, bool transposedB, int64_t count, int64_t depth)
      : row(isRow), tb(transposedB), outputs(count), k(depth) {
    std::mt19937 rng(static_cast<unsigned>(count * 31 + depth));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, int64_t n) {
      v.resize(static_cast<size_t>(n));
      for (float& x : v) x = u(rng);
    };
    if (row) {  // a [1, k], b [outputs, k] rows k + 5 apart, c [1, outputs]
      lda = k, ldb = k + 5, ldc = outputs;
      fill(a, k), fill(b, outputs * ldb), fill(c, outputs);
    } else {  // a [outputs, k] rows k + 3 apart, b [k, 1] 7 apart (or [1, k]), c [outputs, 1] 2 apart
      lda = k + 3, ldb = tb ? k : 7, ldc = 2;
      fill(a, outputs * lda), fill(b, tb ? k : k * ldb), fill(c, outputs * ldc);
    }
  }
  GemmCall call(float alpha, float beta) {
    return row ? GemmCall{false, true, 1, outputs, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc}
               : GemmCall{false, tb, outputs, 1, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc};
  }
  float& out(int64_t i) { return c[static_cast<size_t>(row ? i : i * ldc)]; }
  double dot(int64_t i) const {
    double s = 0;
    for (int64_t p = 0; p < k; ++p) {
      const double x = row ? a[static_cast<size_t>(p)] : a[static_cast<size_t>(i * lda + p)];
      const double y = row ? b[static_cast<size_t>(i * ldb + p)] : b[static_cast<size_t>(tb ? p : p * ldb)];
      s += x * y;
    }
    return s;
  }
};

}  // namespace

TEST_CASE("gemv takes one output row with b transposed or one output column with a not, k at least 64",
          "[runtime][gemm]") {
  auto shape = [](bool ta, bool tb, int64_t m, int64_t n, int64_t k) {
    return gemvShape(GemmCall{ta, tb, m, n, k, 1.0f, nullptr, 0, nullptr, 0, 0.0f, nullptr, 0});
  };
  CHECK(shape(false, true, 1, 1000, 64) == kAvx512);
  CHECK_FALSE(shape(false, true, 1, 1000, 63));     // short dot products stay on the library
  CHECK_FALSE(shape(false, false, 1, 1000, 1280));  // one row of b's columns: not a dot product of rows
  CHECK_FALSE(shape(true, true, 1, 1000, 1280));
  CHECK(shape(false, false, 960, 1, 240) == kAvx512);
  CHECK(shape(false, true, 960, 1, 240) == kAvx512);
  CHECK_FALSE(shape(true, false, 960, 1, 240));
  CHECK_FALSE(shape(false, true, 2, 2, 1280));
}

TEST_CASE("gemv equals a double-precision product: rows and columns, 16-row groups and the rest, beta 0 unread",
          "[runtime][gemm]") {
  if (!kAvx512) return;  // gemvShape refuses every call without AVX-512 (checked above)
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int form = 0; form < 3; ++form)
    for (int64_t outputs : {15, 16, 17, 33})
      for (int64_t k : {64, 100, 1280})
        for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{2.0f, 0.5f}}) {
          INFO("form " << form << ", " << outputs << " outputs, k " << k << ", alpha " << alpha << " beta " << beta);
          Product p(form == 0, form == 2, outputs, k);
          const std::vector<float> before = p.c;
          if (beta == 0.0f)
            for (int64_t i = 0; i < outputs; ++i) p.out(i) = nan;  // must not reach the output
          gemv(p.call(alpha, beta));
          double worst = 0;
          for (int64_t i = 0; i < outputs; ++i) {
            const size_t at = static_cast<size_t>(p.row ? i : i * p.ldc);
            const double want = alpha * p.dot(i) + (beta == 0.0f ? 0.0 : beta * double(before[at]));
            const double err = std::abs(p.out(i) - want) / (1 + std::abs(want));
            worst = std::isnan(err) ? 1e30 : std::max(worst, err);
          }
          CHECK(worst < 1e-5);
          if (!p.row)  // c's other column (ldc 2) untouched
            for (int64_t i = 0; i < outputs; ++i)
              CHECK(p.c[static_cast<size_t>(i * 2 + 1)] == before[static_cast<size_t>(i * 2 + 1)]);
        }
}

TEST_CASE("a GEMV through sgemm: the bias epilogue, and the same bits unsplit or split on any pool",
          "[runtime][gemm][threads]") {
  support::ThreadPool one(1), two(2), three(3);
  // 1000 x 1280 (a classifier), and 200 x 328, 65,600 multiply-adds: just past
  // kMinSplitGemvMacs, where a GEMV splits and a GEMM of that size does not.
  for (auto [outputs, depth] : {std::pair<int64_t, int64_t>{1000, 1280}, {200, 328}})
    for (bool row : {true, false}) {
      INFO((row ? "one output row" : "one output column") << ", " << outputs << " x " << depth);
      Product p(row, false, outputs, depth);
      std::vector<float> bias(static_cast<size_t>(outputs));
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.001f * static_cast<float>(i);
      GemmCall call = p.call(1.0f, 0.0f);
      (row ? call.columnBias : call.rowBias) = bias.data();
      std::fill(p.c.begin(), p.c.end(), std::numeric_limits<float>::quiet_NaN());  // old c unread
      REQUIRE(sgemmOnThisThread(call).ok());
      const std::vector<float> unsplit = p.c;
      double worst = 0;
      for (int64_t i = 0; i < outputs; ++i) {
        const double want = bias[static_cast<size_t>(i)] + p.dot(i);
        const double err = std::abs(unsplit[static_cast<size_t>(row ? i : i * 2)] - want) / (1 + std::abs(want));
        worst = std::isnan(err) ? 1e30 : std::max(worst, err);
      }
      CHECK(worst < 1e-5);
      for (support::ThreadPool* pool : {&one, &two, &three}) {
        std::fill(p.c.begin(), p.c.end(), std::numeric_limits<float>::quiet_NaN());
        REQUIRE(sgemm(*pool, call).ok());
        for (int64_t i = 0; i < outputs; ++i) {
          const size_t at = static_cast<size_t>(row ? i : i * 2);
          CHECK(std::memcmp(&p.c[at], &unsplit[at], sizeof(float)) == 0);
        }
      }
    }
}
