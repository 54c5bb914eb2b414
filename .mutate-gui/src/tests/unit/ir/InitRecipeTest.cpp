// Init recipes: weights and optimizer state described, not stored, until the
// runtime loads them. The numbers must be the same wherever they are made.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc::ir;

namespace {

const char* kRecipeGraph = R"(graph recipes {
  input %x : f32[2,3]
  param %w : f32[3,4] = uniform(0.5, 1234567)
  param %gamma : f32[2,4] = fill(1.0)
  const %w.velocity : f32[3,4] = zeros()
  %y : f32[2,4] = matmul(%x, %w) {trans_a = 0, trans_b = 0} name="mm"
  %z : f32[2,4] = mul(%y, %gamma) name="scale_by_gamma"
  output %z
}
)";

std::string parseError(const std::string& text) {
  auto g = parseGraph(text, "r.dfir");
  return g ? std::string("parsed") : g.error().message();
}

}  // namespace

TEST_CASE("a uniform recipe materializes deterministically within its bound", "[ir][recipe]") {
  TensorType type{DType::F32, {64, 32}};
  Tensor a = Tensor::deferred(type, {InitRecipe::Kind::Uniform, 0.25, 99});
  CHECK(a.isDeferred());
  CHECK_FALSE(a.empty());
  CHECK(a.bytes() == nullptr);
  Tensor x = a.clone(), y = a.clone();
  Tensor other = Tensor::deferred(type, {InitRecipe::Kind::Uniform, 0.25, 100}).clone();
  REQUIRE_FALSE(x.isDeferred());
  auto xs = x.span<float>(), ys = y.span<float>(), os = other.span<float>();
  CHECK(std::equal(xs.begin(), xs.end(), ys.begin()));
  CHECK_FALSE(std::equal(xs.begin(), xs.end(), os.begin()));
  float maxAbs = 0;
  for (float f : xs) maxAbs = std::max(maxAbs, std::fabs(f));
  CHECK(maxAbs <= 0.25f);
  CHECK(maxAbs > 0.24f);  // fills the range
}

TEST_CASE("fill and zeros recipes materialize to their values", "[ir][recipe]") {
  Tensor ones = Tensor::deferred({DType::F32, {5}}, {InitRecipe::Kind::Fill, 1.5, 0}).clone();
  for (float f : ones.span<float>()) CHECK(f == 1.5f);
  Tensor zeros = Tensor::deferred({DType::I64, {3}}, {}).clone();
  for (int64_t v : zeros.span<int64_t>()) CHECK(v == 0);
}

TEST_CASE("recipes survive the text form byte for byte and verify", "[ir][recipe][text]") {
  auto g = parseGraph(kRecipeGraph, "r.dfir");
  INFO((g ? "" : g.error().message()));
  REQUIRE(g.ok());
  auto verified = verifyGraph(*g);
  INFO((verified ? "" : verified.error().message()));
  CHECK(verified.ok());
  const Tensor& w = g->initializers.at(g->findValue("w"));
  REQUIRE(w.isDeferred());
  CHECK(*w.recipe() == InitRecipe{InitRecipe::Kind::Uniform, 0.5, 1234567});
  CHECK(g->initializers.at(g->findValue("w.velocity")).recipe()->kind == InitRecipe::Kind::Zeros);
  CHECK(printGraph(*g, {.withWeights = true}) == kRecipeGraph);
}

TEST_CASE("malformed recipes name the line and what is wrong", "[ir][recipe][text]") {
  const std::string head = "graph g {\n  input %x : f32[2]\n";
  CHECK(parseError(head + "  param %w : f32[2] = gaussian(1.0)\n}\n") ==
        "r.dfir:3:23: expected data [...] or an init recipe zeros(), fill(X), uniform(BOUND, SEED), found 'gaussian'");
  CHECK(parseError(head + "  param %w : f32[2] = uniform(0.5)\n}\n") == "r.dfir:3:34: expected ',', found ')'");
  CHECK(parseError(head + "  param %w : f32[2] = uniform(0.5, -3)\n}\n") ==
        "r.dfir:3:36: uniform(): the seed must be a non-negative integer");
  CHECK(parseError(head + "  param %w : f32[2] = uniform(-0.5, 3)\n}\n") == "r.dfir:3:31: uniform(): bad value -0.5");
  CHECK(parseError(head + "  const %c : i64[2] = fill(1)\n}\n") == "r.dfir:3:23: fill() needs an f32 value, not i64[2]");
}
