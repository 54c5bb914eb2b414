// A conv with small output planes puts several images' columns side by side
// in one GEMM (Conv.cpp, imagesPerGemm), in the forward and in the weight
// gradient: every image's output, with its bias epilogue, and the weight
// gradient summed over the images still match the reference, on 1, 2 and 3
// threads and with a batch that does not divide into the blocks.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

TEST_CASE("conv2d and its weight gradient over small planes, several images to a GEMM, match the reference on any pool", "[runtime][conv]") {
  std::mt19937 rng(17);
  for (const ir::Shape& xs : {ir::Shape{5, 8, 7, 7}, ir::Shape{9, 3, 4, 5}}) {
    INFO("x " << xs[0] << "x" << xs[1] << "x" << xs[2] << "x" << xs[3]);
    ir::Graph g;
    const ValueId x = g.addInput("x", {ir::DType::F32, xs});
    const ValueId w = g.addInput("w", {ir::DType::F32, {16, xs[1], 3, 3}});
    const ValueId b = g.addInput("b", {ir::DType::F32, {16}});
    const ir::Attributes attrs{{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}};
    const ValueId y = addOp(g, OpKind::Conv2d, "conv", {x, w}, attrs);
    const ValueId z = addOp(g, OpKind::BiasAdd, "bias", {y, b});
    const ValueId plain = addOp(g, OpKind::Conv2d, "plain", {x, w}, attrs);  // no epilogue
    ir::Attributes gw = attrs;
    gw["weight_shape"] = ir::Shape{16, xs[1], 3, 3};
    const ValueId dw = addOp(g, OpKind::Conv2dGradWeight, "dw", {z, x}, gw);  // z stands in for dy
    g.outputs = {z, plain, dw};
    const std::map<ValueId, ir::Tensor> feeds{
        {x, randomTensor(xs, rng)}, {w, randomTensor({16, xs[1], 3, 3}, rng)}, {b, randomTensor({16}, rng)}};
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE(ref.ok());
    partition::Plan plan;
    plan.sections = {{0, "all", ir::NodeRole::Forward, {0, 1, 2, 3}, "", 0, {}}};
    plan.schedule = {0};
    for (int threads : {1, 2, 3}) {
      INFO(threads << " threads");
      runtime::ExecutorOptions options;
      options.threads = threads;
      options.convAlgo = runtime::ConvAlgoRequest::Gemm;
      auto ex = runtime::Executor::create(g, plan, options);
      if (!ex) FAIL(ex.error().message());
      CHECK(ex->fusionStats().biasEpilogues == 1);
      for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
      REQUIRE(ex->step(true).ok());
      CHECK(maxRelDiff(ex->tensor(z), ref->at(z)) < 1e-5);
      CHECK(maxRelDiff(ex->tensor(plain), ref->at(plain)) < 1e-5);
      CHECK(maxRelDiff(ex->tensor(dw), ref->at(dw)) < 1e-5);
    }
  }
}
