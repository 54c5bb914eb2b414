// Tensors kept in oneDNN's channels-last layout between convolutions
// (runtime/BlockedLayouts.h): which ones the plan holds so, for every
// condition it checks (read by a non-convolution, a graph output,
// convolutions not on oneDNN, the option off), and that a step with them
// gives the same bits as one without, at 1, 2, 3 and 5 threads, cut by
// images, by blocks of channels (ragged ones too) and by bands of rows.
#include <catch2/catch.hpp>
#include <cstring>

#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

// A ResNet-like chain on `channels` channels: a = relu(conv(img) + b);
// b = relu(conv(a) + b); c = relu(conv(b) + b + a) (a residual); outputs
// conv(c) with stride 2 and global_avg_pool(c). a and b pass only between
// convolutions; c is also read by the pool, the strided conv's output is a
// graph output. 3x3 convs on 12 x 12 planes: too few Winograd tiles, so auto
// runs them on oneDNN.
struct Chain {
  ir::Graph g;
  std::map<ValueId, ir::Tensor> feeds;

  // exposeB: b is a graph output too (read after the step, so it stays NCHW).
  // reluB: false makes b conv(a) + bias alone (a conv + bias_add group).
  Chain(int64_t batch, int64_t channels, std::mt19937& rng, bool exposeB = false, bool reluB = true) {
    const ValueId img = g.addInput("img", {ir::DType::F32, {batch, 16, 12, 12}});
    auto conv = [&](const std::string& name, ValueId x, int64_t stride, ValueId skip, bool relu) {
      const ValueId w =
          g.addParam(name + "_w", randomTensor({channels, g.value(x).type.shape[1], 3, 3}, rng, -0.1f, 0.1f));
      const ValueId b = g.addParam(name + "_b", randomTensor({channels}, rng));
      ValueId y = addOp(g, OpKind::Conv2d, name, {x, w},
                        {{"stride", std::vector<int64_t>{stride, stride}}, {"pad", std::vector<int64_t>{1, 1}}});
      y = addOp(g, OpKind::BiasAdd, name + "_bias", {y, b});
      if (skip != ir::kNoValue) y = addOp(g, OpKind::Add, name + "_add", {y, skip});
      return relu ? addOp(g, OpKind::Relu, name + "_relu", {y}) : y;
    };
    const ValueId a = conv("a", img, 1, ir::kNoValue, true), b = conv("b", a, 1, ir::kNoValue, reluB);
    const ValueId c = conv("c", b, 1, a, true);
    g.outputs = {conv("d", c, 2, ir::kNoValue, false), addOp(g, OpKind::GlobalAvgPool, "pool", {c})};
    if (exposeB) g.outputs.push_back(b);
    feeds[img] = randomTensor({batch, 16, 12, 12}, rng);
  }

  struct Result {
    std::vector<ir::Tensor> outputs;
    int blocked = 0;
  };

  Result run(int threads, bool blocked, runtime::ConvAlgoRequest algo = runtime::ConvAlgoRequest::Auto) const {
    runtime::ExecutorOptions options;
    options.threads = threads;
    options.convAlgo = algo;
    options.blockedLayouts = blocked;
    auto ex = runtime::Executor::create(g, oneSectionPlan(g), options);
    if (!ex) FAIL(ex.error().message());
    for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
    REQUIRE(ex->step(true).ok());
    Result r;
    for (ValueId v : g.outputs) r.outputs.push_back(ex->tensor(v).clone());
    r.blocked = ex->fusionStats().blockedTensors;
    return r;
  }
};

bool sameBits(const ir::Tensor& a, const ir::Tensor& b) {
  return a.byteSize() == b.byteSize() && std::memcmp(a.bytes(), b.bytes(), a.byteSize()) == 0;
}

}  // namespace

TEST_CASE("tensors passing only between oneDNN convolutions are held blocked, with the same bits", "[conv][onednn]") {
  std::mt19937 rng(61);
  // Batch 1 cuts by output channels, batch 4 by images: both contiguous pieces.
  for (int64_t batch : {1, 4})
    for (int threads : {1, 2, 3}) {
      INFO("batch " << batch << " at " << threads << " threads");
      const Chain chain(batch, 32, rng);
      const auto held = chain.run(threads, true), plain = chain.run(threads, false);
      CHECK(held.blocked == 2);  // a and b: c is read by the pool, d is an output
      CHECK(plain.blocked == 0);
      for (size_t i = 0; i < held.outputs.size(); ++i) CHECK(sameBits(held.outputs[i], plain.outputs[i]));
      auto ref = runtime::referenceEvaluate(chain.g, chain.feeds);
      REQUIRE(ref.ok());
      for (size_t i = 0; i < held.outputs.size(); ++i)
        CHECK(maxRelDiff(held.outputs[i], ref->at(chain.g.outputs[i])) < 1e-5);
    }
}

TEST_CASE("tensors are held channels-last at every cut, and not where they leave oneDNN", "[conv][onednn]") {
  std::mt19937 rng(62);
  // Batch 2 on 3 threads: cut by blocks of channels across both images, each
  // piece writing a strided slice of y.
  const Chain two(2, 32, rng);
  const auto t3 = two.run(3, true);
  CHECK(t3.blocked == 2);
  for (size_t i = 0; i < t3.outputs.size(); ++i) CHECK(sameBits(t3.outputs[i], two.run(3, false).outputs[i]));
  CHECK(two.run(2, true).blocked == 2);  // by images: one each
  // 24 channels: the last block of 16 is partial.
  const Chain ragged(1, 24, rng);
  const auto r = ragged.run(2, true);
  CHECK(r.blocked == 2);
  for (size_t i = 0; i < r.outputs.size(); ++i) CHECK(sameBits(r.outputs[i], ragged.run(2, false).outputs[i]));
  // b is also a graph output: only a is held.
  const Chain exposed(1, 32, rng, true);
  const auto e = exposed.run(1, true), ePlain = exposed.run(1, false);
  CHECK(e.blocked == 1);
  for (size_t i = 0; i < e.outputs.size(); ++i) CHECK(sameBits(e.outputs[i], ePlain.outputs[i]));
  // b as a conv + bias_add with no activation: its output is the bias_add's.
  const Chain biasOnly(1, 32, rng, false, false);
  const auto bo = biasOnly.run(1, true);
  CHECK(bo.blocked == 2);
  for (size_t i = 0; i < bo.outputs.size(); ++i) CHECK(sameBits(bo.outputs[i], biasOnly.run(1, false).outputs[i]));
  // Under --conv-algo gemm the convolutions run on im2col + GEMM.
  CHECK(Chain(1, 32, rng).run(1, true, runtime::ConvAlgoRequest::Gemm).blocked == 0);
}

TEST_CASE("one image held channels-last is cut into bands of output rows with the same bits", "[conv][onednn]") {
  std::mt19937 rng(63);
  // 16 channels on 12 x 12: the weights per output channel (16 x 3 x 3) are
  // exactly the plane's 144 pixels, where bands of rows are taken. 12 rows on
  // 5 threads: bands of 2 and 3 rows, the first and last with a padding row,
  // the middle ones reading a row above and below from their neighbours'.
  const Chain chain(1, 16, rng);
  auto ref = runtime::referenceEvaluate(chain.g, chain.feeds);
  REQUIRE(ref.ok());
  for (int threads : {2, 3, 5}) {
    INFO(threads << " threads");
    const auto held = chain.run(threads, true), plain = chain.run(threads, false);
    CHECK(held.blocked == 2);
    for (size_t i = 0; i < held.outputs.size(); ++i) {
      CHECK(sameBits(held.outputs[i], plain.outputs[i]));
      CHECK(maxRelDiff(held.outputs[i], ref->at(chain.g.outputs[i])) < 1e-5);
    }
  }
}
