#include <catch2/catch.hpp>

#include "GradCheck.h"

using namespace dfc;
using frontend::GraphBuilder;
using ir::ValueId;
using test::gradCheck;
using test::randomTensor;

namespace {

ir::Tensor labels(std::vector<int64_t> values) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, {static_cast<int64_t>(values.size())}});
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

}  // namespace

TEST_CASE("gradients of elementwise ops match finite differences") {
  SECTION("add") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.add(b.param("a", randomTensor({3, 4}, 1)), b.param("b", randomTensor({3, 4}, 2)));
    }));
  }
  SECTION("sub") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.sub(b.param("a", randomTensor({3, 4}, 1)), b.param("b", randomTensor({3, 4}, 2)));
    }));
  }
  SECTION("mul") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.mul(b.param("a", randomTensor({3, 4}, 1)), b.param("b", randomTensor({3, 4}, 2)));
    }));
  }
  SECTION("fan-out: a value read twice accumulates both contributions") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      ValueId a = b.param("a", randomTensor({2, 5}, 3));
      return b.add(b.mul(a, a), b.scale(a, 3.0));
    }));
  }
  SECTION("scale") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) { return b.scale(b.param("a", randomTensor({5}, 4)), -1.5); }));
  }
  SECTION("bias_add on NCHW") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.biasAdd(b.param("x", randomTensor({2, 3, 2, 2}, 5)), b.param("bias", randomTensor({3}, 6)));
    }));
  }
  SECTION("relu") {
    requireGradientsMatch(
        gradCheck([](GraphBuilder& b) { return b.relu(b.param("x", test::awayFromZero({3, 4}, 7))); }));
  }
}

TEST_CASE("gradients of matmul match finite differences for all transpose combinations") {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      INFO("trans_a=" << ta << " trans_b=" << tb);
      requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
        // op(A) is [3,4], op(B) is [4,2].
        ValueId a = b.param("a", randomTensor(ta ? ir::Shape{4, 3} : ir::Shape{3, 4}, 10));
        ValueId w = b.param("b", randomTensor(tb ? ir::Shape{2, 4} : ir::Shape{4, 2}, 11));
        return b.matmul(a, w, ta != 0, tb != 0);
      }));
    }
  }
}

TEST_CASE("gradients of conv2d match finite differences (input and weight, stride and pad)") {
  SECTION("stride 1, pad 1") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.conv2d(b.param("x", randomTensor({2, 2, 5, 5}, 20)), b.param("w", randomTensor({3, 2, 3, 3}, 21)),
                      {1, 1}, {1, 1});
    }));
  }
  SECTION("stride 2, no pad") {
    requireGradientsMatch(gradCheck([](GraphBuilder& b) {
      return b.conv2d(b.param("x", randomTensor({1, 2, 6, 6}, 22)), b.param("w", randomTensor({2, 2, 2, 3}, 23)),
                      {2, 2}, {0, 0});
    }));
  }
}

TEST_CASE("gradients of a transposed convolution (conv2d_grad_input, ONNX ConvTranspose) match finite differences") {
  for (int64_t stride : {1, 2}) {
    INFO("stride " << stride);
    requireGradientsMatch(gradCheck([&](GraphBuilder& b) {
      // g plays the forward conv's output gradient [N, Cout, Ho, Wo]; y is [N, Cin, H, W].
      const int64_t h = stride == 1 ? 5 : 8;
      ir::Attributes attrs{{"stride", std::vector<int64_t>{stride, stride}}, {"pad", std::vector<int64_t>{1, 1}},
                           {"input_shape", std::vector<int64_t>{2, 2, h, h}}};
      const int64_t ho = (h + 2 - 3) / stride + 1;
      return b.op(ir::OpKind::Conv2dGradInput, {b.param("g", randomTensor({2, 3, ho, ho}, 24)),
                                                b.param("w", randomTensor({3, 2, 3, 3}, 25))},
                  attrs)
          .front();
    }));
  }
}

TEST_CASE("gradients of maxpool2d match finite differences") {
  requireGradientsMatch(gradCheck([](GraphBuilder& b) {
    return b.maxpool2d(b.param("x", test::distinctValues({2, 2, 4, 4}, 30)), {2, 2}, {2, 2});
  }));
}

TEST_CASE("gradients of reshape, reduce_sum and softmax match finite differences") {
  SECTION("reshape") {
    requireGradientsMatch(
        gradCheck([](GraphBuilder& b) { return b.reshape(b.param("x", randomTensor({2, 3, 4}, 40)), {6, -1}); }));
  }
  for (auto axes : std::vector<std::vector<int64_t>>{{2}, {1, 2}, {0}, {0, 2}, {0, 1, 2}}) {
    for (bool keep : {false, true}) {
      INFO("reduce_sum axes size " << axes.size() << " first " << axes[0] << " keepdims " << keep);
      requireGradientsMatch(gradCheck(
          [&](GraphBuilder& b) { return b.reduceSum(b.param("x", randomTensor({2, 3, 4}, 41)), axes, keep); }));
    }
  }
  SECTION("softmax over the last axis") {
    requireGradientsMatch(
        gradCheck([](GraphBuilder& b) { return b.softmax(b.param("x", randomTensor({2, 3, 4}, 42))); }));
  }
}

TEST_CASE("gradient of softmax_cross_entropy matches finite differences, also for a seed other than 1") {
  for (float seed : {1.0f, 2.5f}) {
    INFO("seed " << seed);
    requireGradientsMatch(gradCheck(
        [](GraphBuilder& b) {
          ValueId logits = b.reshape(b.param("x", randomTensor({3, 2, 2}, 50)), {3, 4});
          return b.softmaxCrossEntropy(logits, b.constant("labels", labels({0, 3, 1})));
        },
        5e-3, seed));
  }
}

TEST_CASE("autograd refuses ops without a gradient rule, naming the node") {
  ir::Graph g;
  GraphBuilder b(g);
  ValueId x = b.param("x", randomTensor({2, 3}, 60));
  ValueId y = ir::kNoValue;
  {
    auto s = b.scope("odd");
    y = b.op(ir::OpKind::ReluGrad, {x, x}).front();
  }
  ValueId t = b.reduceSum(y, {0, 1});
  ValueId seed = b.constant("seed", ir::Tensor::scalarF32(1.0f));
  REQUIRE(b.status().ok());
  auto grads = autograd::appendGradients(g, t, seed, {x});
  REQUIRE_FALSE(grads.ok());
  CHECK_THAT(grads.error().message(), Catch::Contains("odd/relu_grad") && Catch::Contains("no gradient rule"));
}

TEST_CASE("reduce_sum over a middle axis is refused, naming the node") {
  ir::Graph g;
  GraphBuilder b(g);
  ValueId x = b.param("x", randomTensor({2, 3, 4}, 61));
  ValueId t = b.reduceSum(b.reduceSum(x, {1}), {0, 1});
  ValueId seed = b.constant("seed", ir::Tensor::scalarF32(1.0f));
  auto grads = autograd::appendGradients(g, t, seed, {x});
  REQUIRE_FALSE(grads.ok());
  CHECK_THAT(grads.error().message(), Catch::Contains("reduce_sum"));
}

TEST_CASE("gradient nodes carry the Backward role and the forward node's scope") {
  ir::Graph g;
  GraphBuilder b(g);
  ValueId x = b.input("x", {ir::DType::F32, {2, 3}});
  ValueId y = ir::kNoValue;
  {
    auto s = b.scope("fc1");
    y = b.linear(x, 3, 4);
  }
  ValueId unused = b.param("unused", randomTensor({2}, 3));
  ValueId t = b.reduceSum(y, {0, 1});
  ValueId seed = b.constant("seed", ir::Tensor::scalarF32(1.0f));
  size_t forwardNodes = g.nodes.size();
  auto grads = autograd::appendGradients(g, t, seed, {g.findValue("fc1/weight"), unused});
  REQUIRE(grads.ok());
  REQUIRE(g.nodes.size() > forwardNodes);
  bool sawFc1 = false;
  for (size_t i = forwardNodes; i < g.nodes.size(); ++i) {
    CHECK(g.nodes[i].role == ir::NodeRole::Backward);
    sawFc1 = sawFc1 || g.nodes[i].scope == "fc1";
  }
  CHECK(sawFc1);
  // The target does not depend on `unused`: its gradient is a zero constant.
  const ir::Value& zero = g.value((*grads)[1]);
  CHECK(zero.kind == ir::ValueKind::Const);
  CHECK(g.initializers.at(zero.id).span<float>()[0] == 0.0f);
  // x is an input, not asked for: no gradient w.r.t. it is computed (bias_add grad via reduce_sum is not needed).
  for (size_t i = forwardNodes; i < g.nodes.size(); ++i) CHECK(g.nodes[i].op != ir::OpKind::ReduceSum);
}
