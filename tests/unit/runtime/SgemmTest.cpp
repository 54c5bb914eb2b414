// The runtime's one GEMM entry point (kernels/Sgemm.h): both libraries against
// a double-precision product for every transpose, strided operands and beta.
// A GEMM split over the pool agrees with the unsplit call within rounding
// (both libraries pick kernels and blocking by size; oneDNN on AVX2 rounds a
// piece differently, on AVX-512 it happened not to); with a fixed split width
// the pieces, and so the bits, are the same on any pool.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/kernels/Sgemm.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime::kernels;

namespace {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  float beta;
};

// Operands stored with a row stride 3 floats longer than needed, so that lda/ldb/ldc matter.
struct Operands {
  Case c;
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c0;

  explicit Operands(const Case& cs) : c(cs) {
    const int64_t aRows = c.ta ? c.k : c.m, aCols = c.ta ? c.m : c.k;
    const int64_t bRows = c.tb ? c.n : c.k, bCols = c.tb ? c.k : c.n;
    lda = aCols + 3, ldb = bCols + 3, ldc = c.n + 3;
    std::mt19937 rng(static_cast<unsigned>(c.m * 7 + c.n * 13 + c.k));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a.resize(static_cast<size_t>(aRows * lda));
    b.resize(static_cast<size_t>(bRows * ldb));
    c0.resize(static_cast<size_t>(c.m * ldc));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    for (float& x : c0) x = u(rng);
  }
  float at(const std::vector<float>& x, int64_t ld, bool t, int64_t r, int64_t col) const {
    return t ? x[static_cast<size_t>(col * ld + r)] : x[static_cast<size_t>(r * ld + col)];
  }
  // op(a) @ op(b) + beta * c0 in double.
  double expected(int64_t i, int64_t j) const {
    double sum = 0;
    for (int64_t p = 0; p < c.k; ++p) sum += double(at(a, lda, c.ta, i, p)) * at(b, ldb, c.tb, p, j);
    return sum + double(c.beta) * c0[static_cast<size_t>(i * ldc + j)];
  }
  GemmCall call(std::vector<float>& out) const {
    return {c.ta, c.tb, c.m, c.n, c.k, 1.0f, a.data(), lda, b.data(), ldb, c.beta, out.data(), ldc};
  }
};

// Largest |got - expected| / (1 + |expected|) over the output (padding columns must be untouched).
double worstError(const Operands& o, const std::vector<float>& out) {
  double worst = 0;
  for (int64_t i = 0; i < o.c.m; ++i) {
    for (int64_t j = 0; j < o.c.n; ++j) {
      const double e = o.expected(i, j);
      worst = std::max(worst, std::abs(out[static_cast<size_t>(i * o.ldc + j)] - e) / (1 + std::abs(e)));
    }
    for (int64_t j = o.c.n; j < o.ldc; ++j)
      if (out[static_cast<size_t>(i * o.ldc + j)] != o.c0[static_cast<size_t>(i * o.ldc + j)]) return 1e30;
  }
  return worst;
}

struct LibraryScope {
  GemmLibrary before = gemmLibrary();
  explicit LibraryScope(GemmLibrary lib) { setGemmLibrary(lib); }
  ~LibraryScope() { setGemmLibrary(before); }
};

const std::vector<Case> kCases = {
    {false, false, 1, 1, 1, 0.0f},    {false, false, 37, 53, 29, 0.0f},  {true, false, 37, 53, 29, 1.0f},
    {false, true, 37, 53, 29, 0.5f},  {true, true, 37, 53, 29, 0.0f},    {false, false, 300, 70, 64, 1.0f},
    {true, false, 300, 70, 64, 0.0f}, {false, true, 70, 301, 64, 0.0f},  {true, true, 70, 301, 64, 1.0f},
    {false, false, 128, 128, 0, 1.0f}, {false, false, 257, 129, 100, 0.0f},
};

}  // namespace

TEST_CASE("sgemm equals a double-precision product on both libraries, every transpose, strided", "[runtime][gemm]") {
  for (GemmLibrary lib : {GemmLibrary::Auto, GemmLibrary::OneDnn, GemmLibrary::OpenBlas}) {
    const LibraryScope scope(lib);
    for (const Case& c : kCases) {
      INFO(gemmLibraryName(lib) << " ta " << c.ta << " tb " << c.tb << " " << c.m << " x " << c.n << " x " << c.k
                                << " beta " << c.beta);
      const Operands o(c);
      std::vector<float> out = o.c0;
      REQUIRE(sgemmOnThisThread(o.call(out)).ok());
      CHECK(worstError(o, out) < 1e-5);
    }
  }
}

TEST_CASE("sgemm split over the pool: within rounding of the unsplit call, a fixed split width gives the same bits on any pool", "[runtime][gemm][threads]") {
  support::ThreadPool one(1), two(2), three(3);
  for (GemmLibrary lib : {GemmLibrary::Auto, GemmLibrary::OneDnn, GemmLibrary::OpenBlas}) {
    const LibraryScope scope(lib);
    for (const Case& c : kCases) {
      INFO(gemmLibraryName(lib) << " ta " << c.ta << " tb " << c.tb << " " << c.m << " x " << c.n << " x " << c.k);
      const Operands o(c);
      std::vector<float> split2 = o.c0, split3 = o.c0;
      REQUIRE(sgemm(two, o.call(split2)).ok());
      REQUIRE(sgemm(three, o.call(split3)).ok());
      CHECK(worstError(o, split2) < 1e-5);
      CHECK(worstError(o, split3) < 1e-5);
      // Cut as for 4 threads: the same pieces, so the same bits, on 1, 2 and 3 threads.
      std::vector<float> fixed1 = o.c0, fixed2 = o.c0, fixed3 = o.c0;
      REQUIRE(sgemm(one, o.call(fixed1), 4).ok());
      REQUIRE(sgemm(two, o.call(fixed2), 4).ok());
      REQUIRE(sgemm(three, o.call(fixed3), 4).ok());
      CHECK(std::memcmp(fixed1.data(), fixed2.data(), fixed1.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(fixed1.data(), fixed3.data(), fixed1.size() * sizeof(float)) == 0);
      CHECK(worstError(o, fixed1) < 1e-5);
    }
  }
}

TEST_CASE("gemm library names: auto, onednn and openblas, nothing else", "[runtime][gemm]") {
  GemmLibrary lib = GemmLibrary::OpenBlas;
  CHECK(parseGemmLibrary("auto", lib));
  CHECK(lib == GemmLibrary::Auto);
  CHECK(parseGemmLibrary("onednn", lib));
  CHECK(lib == GemmLibrary::OneDnn);
  CHECK(parseGemmLibrary("openblas", lib));
  CHECK(lib == GemmLibrary::OpenBlas);
  CHECK_FALSE(parseGemmLibrary("mkl", lib));
  CHECK_FALSE(parseGemmLibrary("", lib));
  CHECK(gemmLibrary() == GemmLibrary::Auto);  // the default
  const LibraryScope scope(GemmLibrary::OneDnn);
  CHECK(std::string(gemmKernelDescription()).rfind("oneDNN ", 0) == 0);
}

TEST_CASE("auto: oneDNN, but a large A-transposed product on OpenBLAS where oneDNN has no AVX-512", "[runtime][gemm]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      INFO("ta " << ta << " tb " << tb);
      CHECK(libraryFor(GemmLibrary::OneDnn, ta, tb, 1024, 1024, 1024) == GemmLibrary::OneDnn);  // a forced library is kept
      CHECK(libraryFor(GemmLibrary::OpenBlas, ta, tb, 1024, 1024, 1024) == GemmLibrary::OpenBlas);
      // LeNet's fc1 weight gradient (k = batch 32), a narrow product: oneDNN is as fast or faster
      CHECK(libraryFor(GemmLibrary::Auto, ta, tb, 400, 120, 32) == GemmLibrary::OneDnn);
      CHECK(libraryFor(GemmLibrary::Auto, ta, tb, 64, 576, 1600) == GemmLibrary::OneDnn);
      if (!(ta && !tb)) CHECK(libraryFor(GemmLibrary::Auto, ta, tb, 1024, 1024, 1024) == GemmLibrary::OneDnn);
    }
  const LibraryScope scope(GemmLibrary::Auto);
  const std::string description = gemmKernelDescription();
  const bool avx512 = description.find("avx512") != std::string::npos;
  CHECK(libraryFor(GemmLibrary::Auto, true, false, 256, 1024, 1024) == (avx512 ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas));
  CHECK((description.find("A^T products on OpenBLAS") != std::string::npos) == !avx512);
}

TEST_CASE("sgemm with a bias epilogue: c = op(a) @ op(b) + bias, old c unread, split or not", "[runtime][gemm]") {
  support::ThreadPool three(3);
  for (const Case& base : {Case{false, false, 300, 70, 64, 0.0f}, Case{false, true, 70, 301, 64, 0.0f}}) {
    const Operands o(base);
    std::vector<float> columnBias(static_cast<size_t>(base.n)), rowBias(static_cast<size_t>(base.m));
    for (size_t j = 0; j < columnBias.size(); ++j) columnBias[j] = 0.25f * static_cast<float>(j % 7) - 0.5f;
    for (size_t i = 0; i < rowBias.size(); ++i) rowBias[i] = 0.125f * static_cast<float>(i % 5) + 1.0f;
    for (bool byColumn : {true, false}) {
      INFO(base.m << " x " << base.n << (byColumn ? " column bias" : " row bias"));
      std::vector<float> one = o.c0, split = o.c0;
      GemmCall call = o.call(one);
      call.beta = 0.5f;  // ignored with a bias: the old contents are not read
      (byColumn ? call.columnBias : call.rowBias) = byColumn ? columnBias.data() : rowBias.data();
      REQUIRE(sgemmOnThisThread(call).ok());
      call.c = split.data();
      REQUIRE(sgemm(three, call).ok());
      double worst = 0, worstSplit = 0;
      for (int64_t i = 0; i < base.m; ++i)
        for (int64_t j = 0; j < base.n; ++j) {
          const double bias = byColumn ? columnBias[static_cast<size_t>(j)] : rowBias[static_cast<size_t>(i)];
          const double e = o.expected(i, j) + bias;  // beta is 0 in these cases
          worst = std::max(worst, std::abs(one[static_cast<size_t>(i * o.ldc + j)] - e) / (1 + std::abs(e)));
          worstSplit = std::max(worstSplit, std::abs(split[static_cast<size_t>(i * o.ldc + j)] - e) / (1 + std::abs(e)));
        }
      CHECK(worst < 1e-5);
      CHECK(worstSplit < 1e-5);
    }
  }
}

TEST_CASE("sgemm with a conv epilogue: row bias, residual and clip per column panel, split or not", "[runtime][gemm]") {
  support::ThreadPool three(3);
  // 64 rows: panels of kPanelFloats / 64 = 512 columns, so 1100 columns take
  // three (the last ragged); 16 columns take one.
  for (const Case& base : {Case{false, false, 64, 1100, 24, 0.0f}, Case{false, false, 64, 16, 24, 0.0f}}) {
    const Operands o(base);
    std::vector<float> rowBias(static_cast<size_t>(base.m)), skip(static_cast<size_t>(base.m * base.n));
    for (size_t i = 0; i < rowBias.size(); ++i) rowBias[i] = 0.125f * static_cast<float>(i % 5) - 0.25f;
    for (size_t i = 0; i < skip.size(); ++i) skip[i] = 0.5f * static_cast<float>(i % 9) - 2.0f;
    const ConvEpilogue clip{false, ConvActivation::Clip, -1.5f, 2.0f, true};
    std::vector<float> one = o.c0, split = o.c0;
    GemmCall call = o.call(one);
    call.rowBias = rowBias.data();
    call.residual = skip.data();
    call.ldr = base.n;
    call.activation = &clip;
    REQUIRE(sgemmOnThisThread(call).ok());
    call.c = split.data();
    REQUIRE(sgemm(three, call).ok());
    double worst = 0, worstSplit = 0;
    for (int64_t i = 0; i < base.m; ++i)
      for (int64_t j = 0; j < base.n; ++j) {
        const double sum =
            o.expected(i, j) + rowBias[static_cast<size_t>(i)] + skip[static_cast<size_t>(i * base.n + j)];
        const double e = std::min(2.0, std::max(-1.5, sum));
        worst = std::max(worst, std::abs(one[static_cast<size_t>(i * o.ldc + j)] - e) / (1 + std::abs(e)));
        worstSplit = std::max(worstSplit, std::abs(split[static_cast<size_t>(i * o.ldc + j)] - e) / (1 + std::abs(e)));
      }
    INFO(base.n << " columns");
    CHECK(worst < 1e-5);
    CHECK(worstSplit < 1e-5);
  }
}
