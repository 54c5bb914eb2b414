// Finite-difference checks of the gradient rules of the transformer and layout ops.
#include <catch2/catch.hpp>

#include "GradCheck.h"

using namespace dfc;
using frontend::GraphBuilder;
using ir::OpKind;
using ir::ValueId;
using test::gradCheck;
using test::randomTensor;

namespace {

ValueId op1(GraphBuilder& b, OpKind kind, std::vector<ValueId> in, ir::Attributes attrs = {}) {
  auto outs = b.op(kind, std::move(in), std::move(attrs));
  return outs.empty() ? ir::kNoValue : outs.front();
}

}  // namespace

TEST_CASE("gradients of layout ops match finite differences") {
  SECTION("transpose") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return op1(b, OpKind::Transpose, {b.param("x", randomTensor({2, 3, 4}, 1))},
                 {{"perm", std::vector<int64_t>{2, 0, 1}}});
    }));
  }
  SECTION("slice") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return op1(b, OpKind::Slice, {b.param("x", randomTensor({3, 4, 2}, 2))},
                 {{"axis", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{3}}});
    }));
  }
  SECTION("batch_matmul, every transpose combination") {
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
          ValueId x = b.param("a", randomTensor(ta ? ir::Shape{2, 3, 2} : ir::Shape{2, 2, 3}, 3));
          ValueId y = b.param("b", randomTensor(tb ? ir::Shape{2, 4, 3} : ir::Shape{2, 3, 4}, 4));
          return op1(b, OpKind::BatchMatMul, {x, y}, {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}});
        }));
  }
}

TEST_CASE("gradients of transformer ops match finite differences") {
  SECTION("softmax (through softmax_grad)") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) { return b.softmax(b.param("x", randomTensor({2, 3, 5}, 5))); }));
  }
  SECTION("gelu") {
    requireGradientsMatch(
        gradCheck([](GraphBuilder& b) { return op1(b, OpKind::Gelu, {b.param("x", randomTensor({4, 6}, 6))}); }));
  }
  SECTION("causal_mask then softmax, as in attention") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.softmax(op1(b, OpKind::CausalMask, {b.param("x", randomTensor({2, 4, 4}, 7))}, {{"fill", -1e9}}));
    }));
  }
  SECTION("layer_norm: x, gamma and beta") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return op1(b, OpKind::LayerNorm,
                 {b.param("x", randomTensor({3, 6}, 8)), b.param("gamma", randomTensor({6}, 9)),
                  b.param("beta", randomTensor({6}, 10))},
                 {{"epsilon", 1e-5}});
    }));
  }
  SECTION("embedding with repeated ids") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      ir::Tensor ids(ir::TensorType{ir::DType::I64, {2, 3}});
      int64_t values[] = {1, 4, 1, 0, 2, 4};
      std::copy(std::begin(values), std::end(values), ids.data<int64_t>());
      return op1(b, OpKind::Embedding, {b.param("table", randomTensor({5, 3}, 11)), b.constant("ids", ids)});
    }));
  }
}

TEST_CASE("gradients of vision ops match finite differences") {
  SECTION("batch_norm: x, gamma and beta") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return op1(b, OpKind::BatchNorm,
                 {b.param("x", randomTensor({3, 2, 2, 2}, 12)), b.param("gamma", randomTensor({2}, 13)),
                  b.param("beta", randomTensor({2}, 14))},
                 {{"epsilon", 1e-5}});
    }));
  }
  SECTION("global_avg_pool") {
    requireGradientsMatch(gradCheck(
        [](GraphBuilder& b) { return op1(b, OpKind::GlobalAvgPool, {b.param("x", randomTensor({2, 3, 2, 3}, 15))}); }));
  }
  SECTION("padded maxpool2d") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return op1(b, OpKind::MaxPool2d, {b.param("x", test::distinctValues({1, 2, 5, 5}, 16))},
                 {{"kernel", std::vector<int64_t>{3, 3}}, {"stride", std::vector<int64_t>{2, 2}},
                  {"pad", std::vector<int64_t>{1, 1}}});
    }));
  }
}
