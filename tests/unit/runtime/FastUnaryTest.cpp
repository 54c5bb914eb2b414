// The float unary functions (kernels/FastUnary.cpp) against libm in double
// over dense grids: the error bounds FastUnary.cpp states, the exact values
// at the points a user can check by hand, the saturation and overflow ends,
// and NaN passing through.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "runtime/kernels/FastUnary.h"

using namespace dfc::runtime::kernels;

namespace {

struct Worst {
  double abs = 0, rel = 0;
  float absAt = 0, relAt = 0;
};

// The largest absolute and relative error of f against exact over [lo, hi].
Worst worstError(float (*f)(float), const std::function<double(double)>& exact, float lo, float hi, int steps) {
  Worst w;
  for (int i = 0; i <= steps; ++i) {
    const float x = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(steps);
    const double want = exact(x), got = f(x);
    const double abs = std::abs(got - want), rel = want == 0 ? abs : abs / std::abs(want);
    if (abs > w.abs) w.abs = abs, w.absAt = x;
    if (rel > w.rel) w.rel = rel, w.relAt = x;
  }
  return w;
}

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("fast erf is within 5e-7 of erf everywhere and 3e-7 relative near 0", "[kernels][fastmath]") {
  const auto erf = [](double v) { return std::erf(v); };
  const Worst all = worstError(fastErf, erf, -8, 8, 400000);
  INFO("worst absolute " << all.abs << " at " << all.absAt);
  CHECK(all.abs < 5e-7);
  const Worst small = worstError(fastErf, erf, -0.5f, 0.5f, 100000);
  INFO("worst relative near 0 " << small.rel << " at " << small.relAt);
  CHECK(small.rel < 3e-7);
  CHECK(fastErf(0.0f) == 0.0f);
  CHECK(fastErf(-1.5f) == -fastErf(1.5f));  // odd
  CHECK(std::abs(fastErf(1e30f) - 1.0f) < 5e-7);
  CHECK(std::isnan(fastErf(kNan)));
}

TEST_CASE("fast sigmoid is within 1e-6 relative down to where it flushes to 0", "[kernels][fastmath]") {
  const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  const Worst w = worstError(fastSigmoid, sigmoid, -87, 80, 400000);
  INFO("worst relative " << w.rel << " at " << w.relAt);
  CHECK(w.rel < 1e-6);
  CHECK(fastSigmoid(0.0f) == 0.5f);
  CHECK(fastSigmoid(100.0f) == 1.0f);
  CHECK(fastSigmoid(-88.0f) == 0.0f);  // e^-88 is below the normal floats: flushed, not a denormal
  CHECK(fastSigmoid(-kInf) == 0.0f);
  CHECK(std::isnan(fastSigmoid(kNan)));
}

TEST_CASE("fast exp is within 1e-6 relative, reaches the denormals and overflows to inf where expf does",
          "[kernels][fastmath]") {
  const auto exp = [](double v) { return std::exp(v); };
  const Worst w = worstError(fastExpInf, exp, -87, 88.7f, 400000);
  INFO("worst relative " << w.rel << " at " << w.relAt);
  CHECK(w.rel < 1e-6);
  CHECK(fastExpInf(0.0f) == 1.0f);
  CHECK(fastExpInf(88.7f) < kInf);
  CHECK(fastExpInf(88.8f) == kInf);
  CHECK(fastExpInf(-kInf) == 0.0f);
  CHECK(fastExpInf(-100.0f) > 0.0f);  // a denormal, as expf gives
  CHECK(std::isnan(fastExpInf(kNan)));
}

TEST_CASE("fast gelu is within 1e-6 of the erf form, times max(1, |x|)", "[kernels][fastmath]") {
  const auto gelu = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  const auto scaled = [](float x) { return fastGeluErf(x) / std::max(1.0f, std::abs(x)); };
  const auto exact = [&](double v) { return gelu(v) / std::max(1.0, std::abs(v)); };
  const Worst w = worstError(+scaled, exact, -10, 10, 400000);
  INFO("worst scaled absolute " << w.abs << " at " << w.absAt);
  CHECK(w.abs < 1e-6);
  CHECK(fastGeluErf(0.0f) == 0.0f);
  CHECK(fastGeluErf(20.0f) == 20.0f);
  CHECK(fastGeluErf(-20.0f) == 0.0f);
}

TEST_CASE("fast silu is x times the fast sigmoid, within 1e-6 of x sigmoid(x) relative", "[kernels][fastmath]") {
  const auto silu = [](double v) { return v / (1.0 + std::exp(-v)); };
  const Worst w = worstError(fastSilu, silu, -87, 80, 400000);
  INFO("worst relative " << w.rel << " at " << w.relAt);
  CHECK(w.rel < 1e-6);
  CHECK(fastSilu(0.0f) == 0.0f);
  CHECK(fastSilu(2.0f) == 2.0f * fastSigmoid(2.0f));
  CHECK(fastSilu(100.0f) == 100.0f);
  CHECK(fastSilu(-100.0f) == 0.0f);
}

// The loops are built for AVX-512, Haswell and the baseline and the loader
// picks one (FastMath.h): whichever runs must give the bits of the scalar
// function called one element at a time here (this file builds for the
// baseline, where each fmaf is libm's). 1000 elements: every vector width's tail runs.
TEST_CASE("the fast unary loops give the bits of their scalar functions on every instruction set",
          "[kernels][fastmath]") {
  struct Case {
    const char* fn;
    float (*scalar)(float);
    float lo, hi;
  };
  const Case cases[] = {{"sigmoid", fastSigmoid, -90, 90},
                        {"silu", fastSilu, -90, 90},
                        {"exp", fastExpInf, -100, 89},
                        {"erf", fastErf, -5, 5},
                        {"gelu_erf", fastGeluErf, -8, 8}};
  for (const Case& c : cases) {
    const UnaryLoop loop = fastUnaryLoop(c.fn);
    REQUIRE(loop != nullptr);
    std::vector<float> x(1000), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = c.lo + (c.hi - c.lo) * static_cast<float>(i) / 999.0f;
    x[500] = kNan;
    x[501] = -kInf;
    loop(x.data(), y.data(), static_cast<int64_t>(x.size()), 0.0, 0.0);
    int differ = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = c.scalar(x[i]);
      differ += std::isnan(want) ? !std::isnan(y[i]) : std::memcmp(&want, &y[i], sizeof want) != 0;
    }
    INFO(c.fn);
    CHECK(differ == 0);
  }
}
