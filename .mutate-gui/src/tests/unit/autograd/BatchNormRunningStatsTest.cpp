// batch_norm with running statistics behaves as PyTorch's BatchNorm: training
// normalizes by the batch and moves the running mean and (unbiased) variance
// by momentum; evaluation and inference normalize by them. The expected
// numbers were computed once with PyTorch 1.13 (BatchNorm1d(2, eps=1e-5,
// momentum=0.1), weight [1.5, -0.5], bias [0.1, 0.2]; two batches in train(),
// one in eval()), so the test needs no torch.
#include <catch2/catch.hpp>
#include <random>

#include "../runtime/RuntimeTestUtil.h"
#include "SectionsByRole.h"
#include "autograd/Autograd.h"
#include "ir/ShapeInference.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

// The values of bn_ref.py: ((i * a) % 17) / 4 - b.
ir::Tensor pattern(ir::Shape shape, int a, float b) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, std::move(shape)});
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = static_cast<float>((i * a) % 17) / 4.0f - b;
  return t;
}

ir::Tensor filled(int64_t n, float v) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, {n}});
  for (float& x : t.span<float>()) x = v;
  return t;
}

}  // namespace

TEST_CASE("batch_norm moves its running statistics as PyTorch in training and normalizes by them in evaluation",
          "[runtime]") {
  ir::Graph g;
  ValueId x = g.addInput("x", {ir::DType::F32, {4, 2, 3}});
  ValueId gamma = g.addParam("gamma", f32Tensor({2}, {1.5f, -0.5f}));
  ValueId beta = g.addParam("beta", f32Tensor({2}, {0.1f, 0.2f}));
  ValueId mean = g.addConst("running_mean", filled(2, 0.0f)), var = g.addConst("running_var", filled(2, 1.0f));
  auto outs = addInferredNode(g, OpKind::BatchNorm, "bn", {x, gamma, beta, mean, var},
                              {{"epsilon", 1e-5}, {"momentum", 0.1}, {"training", int64_t{1}}});
  REQUIRE(outs.size() == 3);
  g.outputs = {outs[0]};
  g.updates = {{mean, outs[1]}, {var, outs[2]}};
  auto ex = runtime::Executor::create(g, test::sectionsByRole(g));
  REQUIRE(ex.ok());
  REQUIRE(ex->setInput(x, pattern({4, 2, 3}, 5, 2.0f)).ok());
  REQUIRE(ex->step(false).ok());
  REQUIRE(ex->setInput(x, pattern({4, 2, 3}, 7, 1.0f)).ok());
  REQUIRE(ex->step(false).ok());
  const float* rm = ex->tensor(mean).data<float>();
  const float* rv = ex->tensor(var).data<float>();
  CHECK(rm[0] == Approx(0.1158333495259285).epsilon(1e-6));
  CHECK(rm[1] == Approx(0.057500001043081284).epsilon(1e-6));
  CHECK(rv[0] == Approx(1.122054934501648).epsilon(1e-6));
  CHECK(rv[1] == Approx(1.0903408527374268).epsilon(1e-6));

  // Evaluation (forward only) normalizes by the running statistics and leaves them be.
  ir::Graph eval = g;
  eval.values[static_cast<size_t>(x)].type.shape = {2, 2, 3};
  for (ValueId v : outs)
    eval.values[static_cast<size_t>(v)].type.shape = v == outs[0] ? ir::Shape{2, 2, 3} : ir::Shape{2};
  eval.initializers[mean] = ex->tensor(mean).clone();
  eval.initializers[var] = ex->tensor(var).clone();
  auto exEval = runtime::Executor::create(eval, test::sectionsByRole(eval));
  REQUIRE(exEval.ok());
  REQUIRE(exEval->setInput(x, pattern({2, 2, 3}, 3, 1.5f)).ok());
  REQUIRE(exEval->step(true).ok());
  const std::vector<float> torchEval{-2.1881204f, -1.1260738f, -0.0640272f, -0.131594f, -0.490721f,  -0.8498482f,
                                     -1.8341049f, -0.7720582f, 0.2899883f,  -0.251303f, -0.6104301f, -0.9695572f};
  const float* y = exEval->tensor(outs[0]).data<float>();
  for (size_t i = 0; i < torchEval.size(); ++i) CHECK(y[i] == Approx(torchEval[i]).margin(1e-5));
  CHECK(exEval->tensor(mean).data<float>()[0] == rm[0]);

  // The reference interpreter agrees: training=0 (an inference graph) reads the same statistics.
  eval.nodes[0].attrs["training"] = int64_t{0};
  auto ref = runtime::referenceEvaluate(eval, {{x, pattern({2, 2, 3}, 3, 1.5f)}});
  REQUIRE(ref.ok());
  CHECK(maxRelDiff(ref->at(outs[0]), exEval->tensor(outs[0])) < 1e-5);
}

TEST_CASE("a trained conv net with batch_norm evaluates with its running statistics, not the batch's", "[runtime]") {
  // x -> conv2d 1x1 -> batch_norm (running statistics) -> relu -> global_avg_pool -> logits [4, 3].
  std::mt19937 rng(5);
  ir::Graph f;
  ValueId x = f.addInput("x", {ir::DType::F32, {4, 2, 3, 3}});
  ValueId w = f.addParam("conv.weight", randomTensor({3, 2, 1, 1}, rng));
  ValueId conv = addInferredNode(f, OpKind::Conv2d, "conv", {x, w})[0];
  ValueId mean = f.addConst("bn.running_mean", filled(3, 0.0f)), var = f.addConst("bn.running_var", filled(3, 1.0f));
  ValueId bn = addInferredNode(
      f, OpKind::BatchNorm, "bn",
      {conv, f.addParam("bn.weight", filled(3, 1.0f)), f.addParam("bn.bias", filled(3, 0.0f)), mean, var},
      {{"epsilon", 1e-5}, {"momentum", 0.1}})[0];
  ValueId logits =
      addInferredNode(f, OpKind::GlobalAvgPool, "gap", {addInferredNode(f, OpKind::Relu, "relu", {bn})[0]})[0];
  f.outputs = {logits};
  autograd::TrainingConfig config;
  config.optimizer = autograd::Optimizer::Sgd;
  auto t = autograd::buildTrainingGraph(f, x, logits, config);
  REQUIRE(t.ok());
  int statUpdates = 0;
  for (const ir::StateUpdate& u : t->graph.updates) statUpdates += u.target == mean || u.target == var;
  CHECK(statUpdates == 2);

  auto ex = runtime::Executor::create(t->graph, test::sectionsByRole(t->graph));
  REQUIRE(ex.ok());
  std::map<ValueId, ir::Tensor> firstFeeds;
  for (int step = 0; step < 3; ++step) {
    std::map<ValueId, ir::Tensor> feeds{{x, randomTensor({4, 2, 3, 3}, rng, -2.0f, 3.0f)},
                                        {t->labels, labelTensor(4, 3, rng)},
                                        {t->lr, ir::Tensor::scalarF32(0.1f)}};
    for (const auto& [id, tensor] : feeds) REQUIRE(ex->setInput(id, tensor).ok());
    if (step == 0) {  // the first step's running statistics, as the reference interpreter moves them
      auto ref = runtime::referenceEvaluate(t->graph, feeds);
      REQUIRE(ref.ok());
      REQUIRE(ex->step(false).ok());
      for (const ir::StateUpdate& u : t->graph.updates)
        if (u.target == mean || u.target == var) CHECK(maxRelDiff(ex->tensor(u.target), ref->at(u.newValue)) < 1e-5);
      continue;
    }
    REQUIRE(ex->step(false).ok());
  }
  CHECK(ex->tensor(mean).data<float>()[0] != 0.0f);  // moved by training

  // Evaluation: the training PEF's forward sections only, on one batch.
  ir::Tensor evalX = randomTensor({4, 2, 3, 3}, rng, -2.0f, 3.0f);
  REQUIRE(ex->setInput(x, evalX).ok());
  REQUIRE(ex->step(true).ok());
  const ir::Tensor evaluated = ex->tensor(t->logits).clone();
  // Expected: the forward graph (training=0) with the trained weights and statistics.
  std::map<ValueId, ir::Tensor> trained{{x, evalX}};
  for (ValueId v : {w, mean, var, f.findValue("bn.weight"), f.findValue("bn.bias")}) trained[v] = ex->tensor(v).clone();
  auto expected = runtime::referenceEvaluate(f, trained);
  REQUIRE(expected.ok());
  CHECK(maxRelDiff(evaluated, expected->at(logits)) < 1e-5);
  // A training step on the same batch normalizes by the batch instead: different logits.
  ir::Graph batchStats = f;
  batchStats.nodes[static_cast<size_t>(batchStats.findNode("bn"))].attrs["training"] = int64_t{1};
  auto byBatch = runtime::referenceEvaluate(batchStats, trained);
  REQUIRE(byBatch.ok());
  CHECK(maxRelDiff(evaluated, byBatch->at(logits)) > 1e-3);
}
