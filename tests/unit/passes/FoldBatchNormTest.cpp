// fold-batch-norm: a batch_norm on running statistics after a convolution
// becomes the convolution's weights and a bias_add, with the numbers the
// un-folded graph computes; anything else is left alone.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "../runtime/RuntimeTestUtil.h"
#include "passes/Pass.h"
#include "passes/PassManager.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

struct Norm {
  ValueId gamma, beta, mean, var;
};

Norm addStatistics(ir::Graph& g, const std::string& name, std::vector<float> gamma, std::vector<float> beta,
                   std::vector<float> mean, std::vector<float> var) {
  const int64_t c = static_cast<int64_t>(gamma.size());
  return {g.addParam(name + ".gamma", f32Tensor({c}, std::move(gamma))),
          g.addParam(name + ".beta", f32Tensor({c}, std::move(beta))),
          g.addConst(name + ".mean", f32Tensor({c}, std::move(mean))),
          g.addConst(name + ".var", f32Tensor({c}, std::move(var)))};
}

ValueId addNorm(ir::Graph& g, ValueId x, const Norm& s, double eps, int64_t training = 0) {
  return addOp(g, OpKind::BatchNorm, "bn", {x, s.gamma, s.beta, s.mean, s.var},
               {{"epsilon", eps}, {"momentum", 0.1}, {"training", training}});
}

bool fold(ir::Graph& g) {
  auto pass = passes::createPass("fold-batch-norm");
  REQUIRE(pass.ok());
  auto changed = (*pass)->run(g);
  REQUIRE(changed.ok());
  return *changed;
}

int countOps(const ir::Graph& g, OpKind op) {
  int n = 0;
  for (const ir::Node& node : g.nodes) n += node.op == op;
  return n;
}

ir::Tensor evaluateOutput(const ir::Graph& g, ValueId x, const ir::Tensor& input) {
  auto env = runtime::referenceEvaluate(g, {{x, input}});
  if (!env) FAIL(env.error().message());
  return env->at(g.outputs.front());
}

}  // namespace

TEST_CASE("fold-batch-norm folds a one-channel batch norm into the weight and bias by hand", "[passes][fold-bn]") {
  // k = gamma / sqrt(var + eps) = 3 / sqrt(4) = 1.5, so w' = 2 * 1.5 = 3 and
  // b' = (b - mean) * k + beta: with b = 0.5, (0.5 - 0.5) * 1.5 + 1 = 1; with no bias, (0 - 0.5) * 1.5 + 1 = 0.25.
  for (bool convBias : {true, false}) {
    DYNAMIC_SECTION((convBias ? "with" : "without") << " a convolution bias") {
      ir::Graph g;
      ValueId x = g.addInput("x", {ir::DType::F32, {1, 1, 2, 2}});
      ValueId w = g.addParam("w", f32Tensor({1, 1, 1, 1}, {2.0f}));
      ValueId y = addOp(g, OpKind::Conv2d, "conv", {x, w},
                        {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{0, 0}}});
      if (convBias) y = addOp(g, OpKind::BiasAdd, "bias", {y, g.addParam("b", f32Tensor({1}, {0.5f}))});
      g.outputs = {addNorm(g, y, addStatistics(g, "bn", {3.0f}, {1.0f}, {0.5f}, {4.0f}), 0.0)};
      REQUIRE(fold(g));
      CHECK(countOps(g, OpKind::BatchNorm) == 0);
      CHECK(countOps(g, OpKind::BiasAdd) == 1);
      CHECK(g.nodes.size() == 2);
      CHECK(g.value(g.outputs.front()).name == "bn");  // the graph output keeps its value and name
      CHECK(g.initializers.at(g.findValue("w")).data<float>()[0] == 3.0f);
      CHECK(g.initializers.at(g.findValue("bn.beta")).data<float>()[0] == (convBias ? 1.0f : 0.25f));
      // The statistics, gamma and the old bias are gone with their node.
      for (const char* gone : {"bn.gamma", "bn.mean", "bn.var", "b"}) CHECK(g.findValue(gone) == ir::kNoValue);
      ir::Tensor out = evaluateOutput(g, g.findValue("x"), f32Tensor({1, 1, 2, 2}, {1, 2, 3, -4}));
      const float b = convBias ? 1.0f : 0.25f;
      CHECK(out.data<float>()[0] == 3 + b);
      CHECK(out.data<float>()[3] == -12 + b);
    }
  }
}

TEST_CASE("fold-batch-norm computes what the un-folded graph computes", "[passes][fold-bn]") {
  std::mt19937 rng(3);
  // A plain conv2d with a bias, and a grouped, dilated, strided ONNX conv without; batch 3.
  for (bool grouped : {false, true}) {
    DYNAMIC_SECTION((grouped ? "grouped dilated conv" : "conv2d with bias")) {
      ir::Graph g;
      ValueId x = g.addInput("x", {ir::DType::F32, {3, 4, 9, 9}});
      ValueId y;
      if (grouped) {
        ValueId w = g.addParam("w", randomTensor({6, 2, 3, 3}, rng));
        y = addOp(g, OpKind::Conv, "conv", {x, w},
                  {{"strides", std::vector<int64_t>{2, 1}},
                   {"pads", std::vector<int64_t>{2, 1, 2, 0}},
                   {"dilations", std::vector<int64_t>{2, 2}},
                   {"group", int64_t{2}}});
      } else {
        ValueId w = g.addParam("w", randomTensor({6, 4, 3, 3}, rng));
        y = addOp(g, OpKind::Conv2d, "conv", {x, w},
                  {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}});
        y = addOp(g, OpKind::BiasAdd, "bias", {y, g.addParam("b", randomTensor({6}, rng))});
      }
      const ir::Tensor gamma = randomTensor({6}, rng, 0.5f, 2.0f), beta = randomTensor({6}, rng);
      const ir::Tensor mean = randomTensor({6}, rng), var = randomTensor({6}, rng, 0.1f, 3.0f);
      Norm s{g.addParam("bn.gamma", gamma), g.addParam("bn.beta", beta), g.addConst("bn.mean", mean),
             g.addConst("bn.var", var)};
      g.outputs = {addOp(g, OpKind::Relu, "relu", {addNorm(g, y, s, 1e-5)})};
      const ir::Graph unfolded = g;
      REQUIRE(fold(g));
      CHECK(countOps(g, OpKind::BatchNorm) == 0);
      const ir::Tensor input = randomTensor({3, 4, 9, 9}, rng);
      const ir::Tensor want = evaluateOutput(unfolded, unfolded.findValue("x"), input);
      const ir::Tensor got = evaluateOutput(g, g.findValue("x"), input);
      REQUIRE(got.shape() == want.shape());
      CHECK(maxRelDiff(got, want) <= 1e-5);
    }
  }
}

TEST_CASE("fold-batch-norm leaves batch norms it cannot fold", "[passes][fold-bn]") {
  auto build = [](const std::string& kind) {
    ir::Graph g;
    ValueId x = g.addInput("x", {ir::DType::F32, {2, 1, 2, 2}});
    ValueId w = g.addParam("w", f32Tensor({1, 1, 1, 1}, {2.0f}));
    const ir::Attributes conv{{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{0, 0}}};
    ValueId y =
        kind == "no conv" ? addOp(g, OpKind::Relu, "relu", {x}) : addOp(g, OpKind::Conv2d, "conv", {x, w}, conv);
    const Norm s = addStatistics(g, "bn", {3.0f}, {1.0f}, {0.5f}, {4.0f});
    ValueId out = addNorm(g, y, s, 1e-5, kind == "training" ? 1 : 0);
    g.outputs = {out};
    if (kind == "shared weight") g.outputs.push_back(addOp(g, OpKind::Conv2d, "conv2", {x, w}, conv));
    if (kind == "conv output read twice") g.outputs.push_back(y);
    if (kind == "statistics updated") g.updates = {{s.mean, g.node(g.value(out).producer).outputs[1]}};
    return g;
  };
  for (const char* kind : {"training", "shared weight", "conv output read twice", "no conv", "statistics updated"}) {
    DYNAMIC_SECTION(kind) {
      ir::Graph g = build(kind);
      const std::vector<float> w{g.initializers.at(g.findValue("w")).data<float>()[0]};
      CHECK_FALSE(fold(g));
      CHECK(countOps(g, OpKind::BatchNorm) == 1);
      CHECK(g.initializers.at(g.findValue("w")).data<float>()[0] == w[0]);
      CHECK(g.initializers.at(g.findValue("bn.beta")).data<float>()[0] == 1.0f);
    }
  }
}

TEST_CASE("only the inference pipeline folds batch norms", "[passes][fold-bn]") {
  auto has = [](const std::vector<std::string>& p) { return std::count(p.begin(), p.end(), "fold-batch-norm"); };
  CHECK(has(passes::kDefaultInferencePipeline) == 1);
  CHECK(has(passes::kDefaultTrainingPipeline) == 0);
}
