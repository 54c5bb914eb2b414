// A conv2d or conv, its bias_add and a relu or clip run as one kernel
// (SectionFusion.h ConvEpilogue): against the reference interpreter and the
// op-by-op executor at 1, 2 and 3 threads, batch 5, on every algorithm the
// activation is applied by (oneDNN post-op, GEMM, direct loop).
#include <algorithm>
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"
#include "runtime/kernels/OneDnnConv.h"
#include "runtime/kernels/Pointwise.h"
#include "runtime/kernels/StemConv.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

struct Run {
  std::vector<ir::Tensor> outputs;
  runtime::FusionStats stats;
  std::vector<std::string> labels;
};

Run runOnce(const ir::Graph& g, const std::map<ValueId, ir::Tensor>& feeds, bool fuse, int threads,
            runtime::ConvAlgoRequest algo) {
  runtime::ExecutorOptions options;
  options.threads = threads;
  options.fuse = fuse;
  options.convAlgo = algo;
  options.profileKernels = true;
  auto ex = runtime::Executor::create(g, oneSectionPlan(g), options);
  if (!ex) FAIL(ex.error().message());
  for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
  REQUIRE(ex->step(true).ok());
  Run r;
  for (ValueId v : g.outputs) r.outputs.push_back(ex->tensor(v).clone());
  r.stats = ex->fusionStats();
  for (const runtime::KernelTime& k : ex->kernelProfile()) r.labels.push_back(k.label);
  return r;
}

ir::Attributes clip(double lo, double hi) { return {{"fn", std::string("clip")}, {"alpha", lo}, {"beta", hi}}; }

}  // namespace

TEST_CASE("a conv, its bias_add and a relu or clip run as one kernel, within rounding of op by op", "[fusion][conv]") {
  std::mt19937 rng(41);
  ir::Graph g;
  const int64_t n = 5;
  ValueId img = g.addInput("img", {ir::DType::F32, {n, 6, 11, 10}});
  // conv2d 3x3 stride 2 (oneDNN under auto) + bias + relu
  ValueId k1 = g.addParam("k1", randomTensor({8, 6, 3, 3}, rng)), b1 = g.addParam("b1", randomTensor({8}, rng));
  ValueId c1 = addOp(g, OpKind::Conv2d, "c1", {img, k1},
                     {{"stride", std::vector<int64_t>{2, 2}}, {"pad", std::vector<int64_t>{1, 1}}});
  ValueId r1 = addOp(g, OpKind::Relu, "r1", {addOp(g, OpKind::BiasAdd, "c1b", {c1, b1})});
  // depthwise conv + bias + clip(0, 6)
  ValueId k2 = g.addParam("k2", randomTensor({6, 1, 3, 3}, rng, -4, 4)), b2 = g.addParam("b2", randomTensor({6}, rng));
  ValueId c2 = addOp(g, OpKind::Conv, "c2", {img, k2},
                     {{"strides", std::vector<int64_t>{1, 1}},
                      {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                      {"dilations", std::vector<int64_t>{1, 1}},
                      {"group", int64_t{6}}});
  ValueId r2 = addOp(g, OpKind::Unary, "r2", {addOp(g, OpKind::BiasAdd, "c2b", {c2, b2})}, clip(0, 6));
  // 1x1 conv2d (the GEMM on the input) + clip, no bias
  ValueId k3 = g.addParam("k3", randomTensor({4, 6, 1, 1}, rng));
  ValueId c3 = addOp(g, OpKind::Conv2d, "c3", {img, k3},
                     {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{0, 0}}});
  ValueId r3 = addOp(g, OpKind::Unary, "r3", {c3}, clip(-0.5, 0.5));
  // A conv whose output the step also returns: its relu stays a kernel of its own.
  ValueId k4 = g.addParam("k4", randomTensor({3, 6, 3, 3}, rng));
  ValueId c4 = addOp(g, OpKind::Conv2d, "c4", {img, k4},
                     {{"stride", std::vector<int64_t>{2, 2}}, {"pad", std::vector<int64_t>{0, 0}}});
  ValueId r4 = addOp(g, OpKind::Relu, "r4", {c4});
  g.outputs = {r1, r2, r3, c4, r4};
  const std::map<ValueId, ir::Tensor> feeds{{img, randomTensor({n, 6, 11, 10}, rng)}};
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());

  for (auto algo : {runtime::ConvAlgoRequest::Auto, runtime::ConvAlgoRequest::Gemm})
    for (int threads : {1, 2, 3}) {
      INFO(runtime::convAlgoRequestName(algo) << " at " << threads << " threads");
      const Run fused = runOnce(g, feeds, true, threads, algo);
      const Run plain = runOnce(g, feeds, false, threads, algo);
      CHECK(fused.stats.convEpilogues == 3);
      CHECK(plain.stats.convEpilogues == 0);
      for (const char* label : {"conv2d + bias_add + relu", "conv + bias_add + clip", "conv2d + clip"})
        CHECK(std::count(fused.labels.begin(), fused.labels.end(), label) == 1);
      for (size_t i = 0; i < g.outputs.size(); ++i) {
        CHECK(maxRelDiff(fused.outputs[i], plain.outputs[i]) < 1e-5);
        CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
      }
    }
}

// MobileNetV2's projections end at the add, ResNet's blocks at a relu after it.
TEST_CASE("a conv, its bias_add, a residual add and a relu or none run as one kernel on every algorithm",
          "[fusion][conv]") {
  for (bool withRelu : {true, false}) {
    INFO((withRelu ? "add + relu" : "add alone"));
    std::mt19937 rng(42);
    ir::Graph g;
    const int64_t n = 5;
    ValueId img = g.addInput("img", {ir::DType::F32, {n, 6, 24, 24}});
    ValueId skipSmall = g.addInput("skip_small", {ir::DType::F32, {n, 8, 12, 12}});
    ValueId skipWide = g.addInput("skip_wide", {ir::DType::F32, {n, 8, 24, 24}});
    ValueId skipTiny = g.addInput("skip_tiny", {ir::DType::F32, {n, 8, 4, 4}});
    auto conv = [&](const std::string& name, int64_t k, int64_t stride, int64_t pad, ValueId x, ValueId skip,
                    bool relu) {
      ValueId w = g.addParam(name + "_w", randomTensor({8, g.value(x).type.shape[1], k, k}, rng));
      ValueId b = g.addParam(name + "_b", randomTensor({8}, rng));
      ValueId c = addOp(g, OpKind::Conv2d, name, {x, w},
                        {{"stride", std::vector<int64_t>{stride, stride}}, {"pad", std::vector<int64_t>{pad, pad}}});
      ValueId sum = addOp(g, OpKind::Add, name + "_add", {skip, addOp(g, OpKind::BiasAdd, name + "_b", {c, b})});
      return relu ? addOp(g, OpKind::Relu, name + "_relu", {sum}) : sum;
    };
    // 3x3 stride 2, 3x3 stride 1 (180 F(4x4) tiles), 1x1 on 24 x 24, 1x1 stride 6 (4 x 4 planes).
    ValueId small = conv("strided", 3, 2, 1, img, skipSmall, withRelu);
    ValueId wide = conv("winograd", 3, 1, 1, img, skipWide, withRelu);
    ValueId pointwise = conv("pointwise", 1, 1, 0, img, skipWide, withRelu);
    ValueId tiny = conv("tiny", 1, 6, 0, img, skipTiny, withRelu);
    g.outputs = {small, wide, pointwise, tiny};
    std::map<ValueId, ir::Tensor> feeds{{img, randomTensor({n, 6, 24, 24}, rng)}};
    for (ValueId s : {skipSmall, skipWide, skipTiny}) feeds[s] = randomTensor(g.value(s).type.shape, rng);
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE(ref.ok());
    // auto: oneDNN, the GEMM on one image; gemm: im2col, images side by side;
    // winograd2: Winograd (the residual and relu in a pass after it); onednn: every one.
    for (auto algo : {runtime::ConvAlgoRequest::Auto, runtime::ConvAlgoRequest::Gemm,
                      runtime::ConvAlgoRequest::Winograd2, runtime::ConvAlgoRequest::OneDnn})
      for (int threads : {1, 2, 3}) {
        INFO(runtime::convAlgoRequestName(algo) << " at " << threads << " threads");
        const Run fused = runOnce(g, feeds, true, threads, algo);
        CHECK(fused.stats.convEpilogues == 4);
        // The profile has one row per label: the four convs share one, and no add or relu runs on its own.
        CHECK(fused.labels ==
              std::vector<std::string>{withRelu ? "conv2d + bias_add + add + relu" : "conv2d + bias_add + add"});
        for (size_t i = 0; i < g.outputs.size(); ++i) CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
      }
  }
}

TEST_CASE("oneDNN's Winograd adds bias and residual with relu as post-ops, and silu, clip, hard_swish after",
          "[fusion][conv][onednn]") {
  if (!runtime::kernels::oneDnnWinogradAvailable()) {
    WARN("oneDNN has no Winograd convolution on this CPU");
    return;
  }
  const ir::Attributes same{{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}};
  const std::vector<std::pair<std::string, ir::Attributes>> activations{
      {"relu", {}},
      {"silu", {{"fn", std::string("silu")}}},
      {"hard_swish", {{"fn", std::string("hard_swish")}}},
      {"clip", clip(-0.5, 0.75)}};
  for (int64_t n : {5, 1}) {  // 1: cut by blocks of output channels
    std::mt19937 rng(46);
    ir::Graph g;
    std::map<ValueId, ir::Tensor> feeds;
    const ValueId img = g.addInput("img", {ir::DType::F32, {n, 16, 10, 12}});
    const ValueId skip = g.addInput("skip", {ir::DType::F32, {n, 24, 10, 12}});
    feeds[img] = randomTensor({n, 16, 10, 12}, rng);
    feeds[skip] = randomTensor({n, 24, 10, 12}, rng);
    for (bool residual : {false, true})
      for (const auto& [name, attrs] : activations) {
        const std::string id = name + (residual ? "_res" : "");
        const ValueId w = g.addParam(id + "_w", randomTensor({24, 16, 3, 3}, rng, -0.2f, 0.2f));
        ValueId y =
            addOp(g, OpKind::BiasAdd, id + "_b",
                  {addOp(g, OpKind::Conv2d, id, {img, w}, same), g.addParam(id + "_bias", randomTensor({24}, rng))});
        if (residual) y = addOp(g, OpKind::Add, id + "_add", {y, skip});
        g.outputs.push_back(addOp(g, name == "relu" ? OpKind::Relu : OpKind::Unary, id + "_act", {y}, attrs));
      }
    for (const ir::Node& node : g.nodes)  // the premise: every conv takes oneDNN's Winograd
      if (node.op == OpKind::Conv2d)
        CHECK(runtime::chooseConvAlgo(*runtime::convShapeOf(g, node), runtime::ConvAlgoRequest::Auto) ==
              runtime::ConvAlgo::OneDnnWinograd);
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE(ref.ok());
    for (int threads : {1, 2, 3}) {
      INFO("batch " << n << " at " << threads << " threads");
      const Run fused = runOnce(g, feeds, true, threads, runtime::ConvAlgoRequest::Auto);
      std::string labels;
      for (const std::string& l : fused.labels) labels += l + "; ";
      INFO(labels);
      // silu fuses from 1.5 MB of output on only: its conv keeps bias (and add).
      CHECK(fused.stats.convEpilogues == 7);
      for (const char* label : {"conv2d + bias_add + add + relu", "conv2d + bias_add + clip",
                                "conv2d + bias_add + add + hard_swish", "conv2d + bias_add + add"})
        CHECK(std::count(fused.labels.begin(), fused.labels.end(), label) == 1);
      for (size_t i = 0; i < g.outputs.size(); ++i) {
        INFO(g.value(g.outputs[i]).name);
        CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
      }
    }
  }
}

TEST_CASE("the stem and pointwise kernels apply bias, clip, residual and relu in registers", "[fusion][conv]") {
  if (!runtime::kernels::stemConvAvailable() || !runtime::kernels::pointwiseConvAvailable()) {
    WARN("no AVX-512F: the stem and pointwise kernels do not run here");
    return;
  }
  std::mt19937 rng(43);
  ir::Graph g;
  const int64_t n = 5;
  ValueId img = g.addInput("img", {ir::DType::F32, {n, 3, 21, 20}});
  ValueId skipStem = g.addInput("skip_stem", {ir::DType::F32, {n, 20, 11, 10}});
  ValueId skipWide = g.addInput("skip_wide", {ir::DType::F32, {n, 20, 21, 20}});
  auto conv = [&](const std::string& name, int64_t k) {
    ValueId w = g.addParam(name + "_w", randomTensor({20, 3, k, k}, rng, -2, 2));
    ValueId b = g.addParam(name + "_b", randomTensor({20}, rng));
    const int64_t stride = k == 3 ? 2 : 1, pad = k == 3 ? 1 : 0;
    ValueId c = addOp(g, OpKind::Conv2d, name, {img, w},
                      {{"stride", std::vector<int64_t>{stride, stride}}, {"pad", std::vector<int64_t>{pad, pad}}});
    return addOp(g, OpKind::BiasAdd, name + "_b", {c, b});
  };
  // Per kernel (3x3 stride 2: stem; 1x1 3 -> 20: pointwise): bias + clip(-0.5,
  // 0.5) (a range the sums cross at both ends), and bias + residual + relu.
  for (int64_t k : {3, 1}) {
    const std::string name = k == 3 ? "stem" : "pointwise";
    g.outputs.push_back(addOp(g, OpKind::Unary, name + "_clip", {conv(name + "_a", k)}, clip(-0.5, 0.5)));
    ValueId skip = k == 3 ? skipStem : skipWide;
    ValueId sum = addOp(g, OpKind::Add, name + "_add", {skip, conv(name + "_b", k)});
    g.outputs.push_back(addOp(g, OpKind::Relu, name + "_relu", {sum}));
  }
  std::map<ValueId, ir::Tensor> feeds{{img, randomTensor({n, 3, 21, 20}, rng)}};
  for (ValueId s : {skipStem, skipWide}) feeds[s] = randomTensor(g.value(s).type.shape, rng);
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const Run fused = runOnce(g, feeds, true, threads, runtime::ConvAlgoRequest::Auto);
    CHECK(fused.stats.convEpilogues == 4);
    CHECK(std::count(fused.labels.begin(), fused.labels.end(), "conv2d + bias_add + clip") == 1);
    CHECK(std::count(fused.labels.begin(), fused.labels.end(), "conv2d + bias_add + add + relu") == 1);
    CHECK(fused.labels.size() == 2);  // no clip, add or relu of its own
    for (size_t i = 0; i < g.outputs.size(); ++i) CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
  }
}

// A SiLU joins its conv only from 3 x 2^17 outputs (1.5 MB: SectionFusion.cpp)
// on, where the pass it saves would leave L2: exactly that many fuse, one
// fewer do not. A hard-swish joins at any size.
TEST_CASE("a conv's silu runs on its tile from 1.5 MB of output on, a hard_swish at any size", "[fusion][conv][silu]") {
  std::mt19937 rng(44);
  ir::Graph g;
  const ir::Attributes unit{{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{0, 0}}};
  const ir::Attributes silu{{"fn", std::string("silu")}};
  std::map<ValueId, ir::Tensor> feeds;
  for (auto [channels, width] : {std::pair<int64_t, int64_t>{3, 131072}, {5, 78643}}) {  // 393216 and 393215 outputs
    const std::string name = "c" + std::to_string(channels);
    ValueId x = g.addInput(name + "_x", {ir::DType::F32, {1, channels, 1, width}});
    feeds[x] = randomTensor({1, channels, 1, width}, rng, -8, 8);
    ValueId w = g.addParam(name + "_w", randomTensor({channels, channels, 1, 1}, rng));
    g.outputs.push_back(addOp(g, OpKind::Unary, name + "_silu", {addOp(g, OpKind::Conv2d, name, {x, w}, unit)}, silu));
  }
  ValueId small = g.addInput("small", {ir::DType::F32, {3, 4, 5, 6}});
  feeds[small] = randomTensor({3, 4, 5, 6}, rng, -8, 8);
  ValueId hw = g.addParam("hw", randomTensor({4, 4, 1, 1}, rng));
  g.outputs.push_back(addOp(g, OpKind::Unary, "small_hard_swish", {addOp(g, OpKind::Conv2d, "hs", {small, hw}, unit)},
                            {{"fn", std::string("hard_swish")}}));
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const Run fused = runOnce(g, feeds, true, threads, runtime::ConvAlgoRequest::Auto);
    CHECK(fused.stats.convEpilogues == 2);
    CHECK(std::count(fused.labels.begin(), fused.labels.end(), "conv2d + silu") == 1);
    CHECK(std::count(fused.labels.begin(), fused.labels.end(), "conv2d + hard_swish") == 1);
    CHECK(std::count(fused.labels.begin(), fused.labels.end(), "unary") == 1);
    for (size_t i = 0; i < g.outputs.size(); ++i) CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
  }
}
