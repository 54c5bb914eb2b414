// Finite-difference checks of the composed blocks the llama, bloom and
// gpt-neox builders use (RMSNorm, rotary embeddings, grouped-query attention
// with an ALiBi bias, SwiGLU): they are made of existing ops, so these check
// that the ops' rules compose into the right gradients.
#include <catch2/catch.hpp>

#include "GradCheck.h"
#include "frontend/TransformerBlocks.h"

using namespace dfc;
using frontend::GraphBuilder;
using ir::ValueId;
using test::gradCheck;
using test::randomTensor;

namespace {

// batch 1, seq 4, width 8, 4 query heads of 2, 2 key/value heads.
frontend::zoo::Dims smallDims() {
  frontend::zoo::Dims d{1, 4, 8, 4, 1, 16};
  d.kvHeads = 2;
  d.intermediate = 8;
  return d;
}

}  // namespace

TEST_CASE("gradients of the composed RMSNorm match finite differences (input and weight)") {
  requireGradientsMatch(gradCheck([](GraphBuilder& b) {
    ValueId x = b.param("x", randomTensor({3, 6}, 11));
    return frontend::zoo::rmsNorm(b, x, 6, "norm");
  }));
}

TEST_CASE("gradients of rotary embeddings match finite differences") {
  const auto d = smallDims();
  requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
    ValueId x = b.param("x", randomTensor({1, 2, 4, 2}, 12));  // [B, heads, T, Dh]
    return frontend::zoo::applyRotary(b, x, frontend::zoo::rotaryTables(b, d), d.headDim());
  }));
}

TEST_CASE("gradients of grouped-query attention with an ALiBi bias match finite differences") {
  const auto d = smallDims();
  requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
    ValueId q = b.param("q", randomTensor({1, 4, 4, 2}, 13));
    ValueId k = b.param("k", randomTensor({1, 2, 4, 2}, 14));
    ValueId v = b.param("v", randomTensor({1, 2, 4, 2}, 15));
    return frontend::zoo::attend(b, q, k, v, d, true, frontend::zoo::alibiBias(b, d));
  }));
}
