// The composed blocks of the llama, bloom and gpt-neox builders compute what
// their papers say: checked with the reference interpreter against plain loops.
#include <catch2/catch.hpp>

#include <cmath>

#include "GradCheck.h"
#include "frontend/TransformerBlocks.h"
#include "runtime/Reference.h"

using namespace dfc;
using frontend::GraphBuilder;
using ir::ValueId;
using test::randomTensor;

namespace {

// Builds one output with `build` into a fresh graph and evaluates it.
ir::Tensor evaluate(const std::function<ValueId(GraphBuilder&)>& build) {
  ir::Graph g;
  GraphBuilder b(g);
  ValueId y = build(b);
  INFO((b.status().ok() ? std::string() : b.status().error().message()));
  REQUIRE(b.status().ok());
  auto env = runtime::referenceEvaluate(g, {});
  INFO((env.ok() ? std::string() : env.error().message()));
  REQUIRE(env.ok());
  return env->at(y);
}

frontend::zoo::Dims dims(int64_t seq, int64_t hidden, int64_t heads, int64_t kvHeads) {
  frontend::zoo::Dims d{1, seq, hidden, heads, 1, 16};
  d.kvHeads = kvHeads;
  d.intermediate = hidden;
  return d;
}

}  // namespace

TEST_CASE("RMSNorm divides each row by its root mean square") {
  const ir::Tensor x = randomTensor({3, 5}, 21);
  ir::Tensor y = evaluate([&](GraphBuilder& b) { return frontend::zoo::rmsNorm(b, b.param("x", x), 5, "norm"); });
  REQUIRE(y.type().shape == ir::Shape{3, 5});
  for (int64_t r = 0; r < 3; ++r) {
    double ms = 0;
    for (int64_t c = 0; c < 5; ++c) ms += std::pow(x.data<float>()[r * 5 + c], 2) / 5.0;
    for (int64_t c = 0; c < 5; ++c)
      CHECK(y.data<float>()[r * 5 + c] == Approx(x.data<float>()[r * 5 + c] / std::sqrt(ms + 1e-5)).epsilon(1e-4));
  }
}

TEST_CASE("rotary embeddings rotate each (i, i + Dh/2) pair by position * 10000^(-2i/Dh)") {
  const auto d = dims(3, 8, 2, 2);  // Dh 4
  const ir::Tensor x = randomTensor({1, 2, 3, 4}, 22);
  ir::Tensor y = evaluate([&](GraphBuilder& b) {
    return frontend::zoo::applyRotary(b, b.param("x", x), frontend::zoo::rotaryTables(b, d), 4);
  });
  const float* in = x.data<float>();
  const float* out = y.data<float>();
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t t = 0; t < 3; ++t)
      for (int64_t i = 0; i < 2; ++i) {
        const int64_t row = (h * 3 + t) * 4;
        const double angle = static_cast<double>(t) * std::pow(10000.0, -2.0 * static_cast<double>(i) / 4.0);
        const double a = in[row + i], c = in[row + i + 2];
        CHECK(out[row + i] == Approx(a * std::cos(angle) - c * std::sin(angle)).margin(1e-5));
        CHECK(out[row + i + 2] == Approx(c * std::cos(angle) + a * std::sin(angle)).margin(1e-5));
      }
}

TEST_CASE("grouped-query attention equals multi-head attention over repeated key/value heads") {
  const ir::Tensor q = randomTensor({1, 4, 3, 2}, 23);
  const ir::Tensor k = randomTensor({1, 2, 3, 2}, 24), v = randomTensor({1, 2, 3, 2}, 25);
  // Query heads 0, 1 read key/value head 0; heads 2, 3 read head 1.
  auto repeated = [](const ir::Tensor& t) {
    ir::Tensor out(ir::TensorType{ir::DType::F32, {1, 4, 3, 2}});
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t e = 0; e < 6; ++e) out.data<float>()[h * 6 + e] = t.data<float>()[(h / 2) * 6 + e];
    return out;
  };
  ir::Tensor grouped = evaluate([&](GraphBuilder& b) {
    return frontend::zoo::attend(b, b.param("q", q), b.param("k", k), b.param("v", v), dims(3, 8, 4, 2), true);
  });
  ir::Tensor full = evaluate([&](GraphBuilder& b) {
    return frontend::zoo::attend(b, b.param("q", q), b.param("k", repeated(k)), b.param("v", repeated(v)),
                                 dims(3, 8, 4, 4), true);
  });
  REQUIRE(grouped.type().shape == ir::Shape{3, 8});
  for (int64_t i = 0; i < 24; ++i) CHECK(grouped.data<float>()[i] == Approx(full.data<float>()[i]).margin(1e-6));
}

TEST_CASE("ALiBi slopes are BLOOM's: 2^-1 .. 2^-8 for 8 heads, times the key position") {
  ir::Tensor bias = evaluate([](GraphBuilder& b) { return frontend::zoo::alibiBias(b, dims(5, 16, 8, 8)); });
  REQUIRE(bias.type().shape == ir::Shape{8, 1, 5});
  for (int64_t h = 0; h < 8; ++h)
    for (int64_t j = 0; j < 5; ++j)
      CHECK(bias.data<float>()[h * 5 + j] == Approx(std::pow(2.0, -static_cast<double>(h + 1)) * static_cast<double>(j)));
}
