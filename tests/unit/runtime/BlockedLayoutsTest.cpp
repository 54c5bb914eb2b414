// Tensors kept in oneDNN's channels-last layout between convolutions
// (runtime/BlockedLayouts.h): which ones the plan holds so, for every
// condition it checks (read by a non-convolution, a graph output,
// convolutions not on oneDNN, the option off), and that a step with them
// gives the same bits as one without, at 1, 2, 3 and 5 threads, cut by
// images, by blocks of channels (ragged ones too) and by bands of rows; a
// max pool between them held on both sides or neither (NaN windows too); and
// the convolutions that join oneDNN (OneDnnJoins.h) and those that do not.
#include <catch2/catch.hpp>
#include <cstring>
#include <limits>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Executor.h"
#include "runtime/Reference.h"
#include "runtime/kernels/OneDnnConv.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

struct StepResult {
  std::vector<ir::Tensor> outputs;
  runtime::FusionStats stats;
};

// One inference step of g on one section.
StepResult runStep(const ir::Graph& g, const std::map<ValueId, ir::Tensor>& feeds, int threads, bool blocked,
                   runtime::ConvAlgoRequest algo = runtime::ConvAlgoRequest::Auto, bool fuse = true) {
  runtime::ExecutorOptions options;
  options.fuse = fuse;
  options.threads = threads;
  options.convAlgo = algo;
  options.blockedLayouts = blocked;
  auto ex = runtime::Executor::create(g, oneSectionPlan(g), options);
  if (!ex) FAIL(ex.error().message());
  for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
  REQUIRE(ex->step(true).ok());
  StepResult r{{}, ex->fusionStats()};
  for (ValueId v : g.outputs) r.outputs.push_back(ex->tensor(v).clone());
  return r;
}

// A ResNet-like chain on `channels` channels: a = relu(conv(img) + b);
// b = relu(conv(a) + b); c = relu(conv(b) + b + a) (a residual); outputs
// conv(c) with stride 2 and global_avg_pool(c). a and b pass only between
// convolutions; c is also read by the pool, the strided conv's output is a
// graph output. 3x3 convs on 12 x 12 planes: too few Winograd tiles for ours,
// so auto runs them on oneDNN, the stride-1 ones on its Winograd where it has
// one (then a and b, on whole 16-channel blocks, are held nChw16c).
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
    int blocked = 0, blocked16 = 0;
  };

  Result run(int threads, bool blocked, runtime::ConvAlgoRequest algo = runtime::ConvAlgoRequest::Auto) const {
    StepResult r = runStep(g, feeds, threads, blocked, algo);
    return {std::move(r.outputs), r.stats.blockedTensors, r.stats.blocked16Tensors};
  }
};

const bool kOneDnnWino = runtime::kernels::oneDnnWinogradAvailable();

bool sameBits(const ir::Tensor& a, const ir::Tensor& b) {
  return a.byteSize() == b.byteSize() && std::memcmp(a.bytes(), b.bytes(), a.byteSize()) == 0;
}

}  // namespace

TEST_CASE("tensors passing only between oneDNN convolutions are held channels-last, with the same bits",
          "[conv][onednn]") {
  std::mt19937 rng(61);
  // Batch 1 cuts by blocks of output channels (32 x 3 x 3 weights a channel
  // over 144 pixels), batch 4 by images.
  for (int64_t batch : {1, 4})
    for (int threads : {1, 2, 3}) {
      INFO("batch " << batch << " at " << threads << " threads");
      const Chain chain(batch, 32, rng);
      const auto held = chain.run(threads, true), plain = chain.run(threads, false);
      CHECK(held.blocked == 2);  // a and b: c is read by the pool, d is an output
      CHECK(held.blocked16 == (kOneDnnWino ? 2 : 0));
      CHECK(plain.blocked == 0);
      CHECK(plain.blocked16 == 0);
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
  CHECK(t3.blocked16 == (kOneDnnWino ? 2 : 0));  // a slice of both images: a sub-memory of the nChw16c tensor
  for (size_t i = 0; i < t3.outputs.size(); ++i) CHECK(sameBits(t3.outputs[i], two.run(3, false).outputs[i]));
  CHECK(two.run(2, true).blocked == 2);  // by images: one each
  // 24 channels: the last block of 16 is partial.
  const Chain ragged(1, 24, rng);
  const auto r = ragged.run(2, true);
  CHECK(r.blocked == 2);
  CHECK(r.blocked16 == 0);  // not whole 16-channel blocks: NHWC
  for (size_t i = 0; i < r.outputs.size(); ++i) CHECK(sameBits(r.outputs[i], ragged.run(2, false).outputs[i]));
  // b is also a graph output: only a is held.
  const Chain exposed(1, 32, rng, true);
  const auto e = exposed.run(1, true), ePlain = exposed.run(1, false);
  CHECK(e.blocked == 1);
  CHECK(e.blocked16 == (kOneDnnWino ? 1 : 0));
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

namespace {

// A ResNet-50 bottleneck on a 12 x 12 image: u = relu(1x1(x) + b),
// v = relu(3x3(u) + b), y = relu(1x1(v) + b + x), read by a pool. Auto runs
// the 3x3 on oneDNN (too few Winograd tiles) and the 1x1s on a GEMM or the
// pointwise kernel. lone: the 3x3 is a 1x1 too (no conv on oneDNN at all);
// inputWeights: the first 1x1's weight is a graph input (not stable);
// poolU: u is also read by a pool; exposeU: u is a graph output (either way
// it cannot be held); shortcut: y is a 3x3 whose residual is 1x1(x) + b alone
// (a ResNet's downsample, linked to oneDNN only as a residual).
struct Variant {
  bool lone = false, inputWeights = false, poolU = false, exposeU = false, shortcut = false;
};

ir::Graph bottleneck(int64_t batch, std::mt19937& rng, Variant var = {}) {
  ir::Graph g;
  const int64_t c = 32;
  const ValueId x = g.addInput("x", {ir::DType::F32, {batch, c, 12, 12}});
  auto conv = [&](const std::string& name, ValueId in, int64_t k, ValueId skip, bool input, bool relu = true) {
    const ir::TensorType wt{ir::DType::F32, {c, c, k, k}};
    const ValueId w =
        input ? g.addInput(name + "_w", wt) : g.addParam(name + "_w", randomTensor(wt.shape, rng, -0.1f, 0.1f));
    const ValueId b = g.addParam(name + "_b", randomTensor({c}, rng));
    const int64_t pad = k / 2;
    ValueId y = addOp(g, OpKind::Conv2d, name, {in, w},
                      {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{pad, pad}}});
    y = addOp(g, OpKind::BiasAdd, name + "_bias", {y, b});
    if (skip != ir::kNoValue) y = addOp(g, OpKind::Add, name + "_add", {y, skip});
    return relu ? addOp(g, OpKind::Relu, name + "_relu", {y}) : y;
  };
  const ValueId u = conv("u", x, 1, ir::kNoValue, var.inputWeights);
  const ValueId v = conv("v", u, var.lone ? 1 : 3, ir::kNoValue, false);
  const ValueId skip = var.shortcut ? conv("s", x, 1, ir::kNoValue, false, false) : x;
  g.outputs = {addOp(g, OpKind::GlobalAvgPool, "pool", {conv("y", v, var.shortcut ? 3 : 1, skip, false)})};
  if (var.poolU) g.outputs.push_back(addOp(g, OpKind::GlobalAvgPool, "pool_u", {u}));
  if (var.exposeU) g.outputs.push_back(u);
  return g;
}

struct Joined {
  ir::Tensor out;
  runtime::FusionStats stats;
};

Joined runBottleneck(const ir::Graph& g, const std::map<ValueId, ir::Tensor>& feeds, int threads, bool blocked,
                     runtime::ConvAlgoRequest algo = runtime::ConvAlgoRequest::Auto, bool fuse = true) {
  StepResult r = runStep(g, feeds, threads, blocked, algo, fuse);
  return {std::move(r.outputs[0]), r.stats};
}

std::map<ValueId, ir::Tensor> feedsFor(const ir::Graph& g, std::mt19937& rng) {
  std::map<ValueId, ir::Tensor> feeds;
  for (ValueId v : g.inputs) feeds[v] = randomTensor(g.value(v).type.shape, rng, -0.1f, 0.1f);
  return feeds;
}

}  // namespace

TEST_CASE("1x1 convolutions between oneDNN ones join them and hold their tensors channels-last", "[conv][onednn]") {
  std::mt19937 rng(64);
  // Batch 3: cut by images on 3 threads, across them on 2.
  for (int64_t batch : {1, 3})
    for (int threads : {1, 2, 3}) {
      INFO("batch " << batch << " at " << threads << " threads");
      const ir::Graph g = bottleneck(batch, rng);
      const auto feeds = feedsFor(g, rng);
      const Joined joined = runBottleneck(g, feeds, threads, true), alone = runBottleneck(g, feeds, threads, false);
      CHECK(joined.stats.oneDnnJoins == 2);
      CHECK(joined.stats.blockedTensors == 2);  // u and v: y is read by the pool
      CHECK(alone.stats.oneDnnJoins == 0);
      auto ref = runtime::referenceEvaluate(g, feeds);
      REQUIRE(ref.ok());
      CHECK(maxRelDiff(joined.out, ref->at(g.outputs[0])) < 1e-5);
      CHECK(maxRelDiff(alone.out, ref->at(g.outputs[0])) < 1e-5);
    }
}

TEST_CASE("a 1x1 shortcut joins the oneDNN convolution that adds it as its residual", "[conv][onednn]") {
  std::mt19937 rng(66);
  const ir::Graph g = bottleneck(1, rng, {.shortcut = true});
  const auto feeds = feedsFor(g, rng);
  for (int threads : {1, 2}) {
    const Joined j = runBottleneck(g, feeds, threads, true);
    CHECK(j.stats.oneDnnJoins == 2);     // u (feeding v) and s (y's residual)
    CHECK(j.stats.blockedTensors == 3);  // u, v and s
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE(ref.ok());
    CHECK(maxRelDiff(j.out, ref->at(g.outputs[0])) < 1e-5);
  }
}

TEST_CASE("1x1 convolutions stay put with no oneDNN convolution to join, changing weights or a forced algorithm",
          "[conv][onednn]") {
  std::mt19937 rng(65);
  const ir::Graph lone = bottleneck(1, rng, {.lone = true});
  const auto loneFeeds = feedsFor(lone, rng);
  CHECK(runBottleneck(lone, loneFeeds, 1, true).stats.oneDnnJoins == 0);
  // u's weight is fed each step: u stays on its GEMM; y still joins through v.
  const ir::Graph fed = bottleneck(1, rng, {.inputWeights = true});
  const auto fedFeeds = feedsFor(fed, rng);
  const Joined f = runBottleneck(fed, fedFeeds, 2, true);
  CHECK(f.stats.oneDnnJoins == 1);
  CHECK(f.stats.blockedTensors == 1);  // v
  auto ref = runtime::referenceEvaluate(fed, fedFeeds);
  REQUIRE(ref.ok());
  CHECK(maxRelDiff(f.out, ref->at(fed.outputs[0])) < 1e-5);
  // u is also pooled, or a graph output: it stays on its GEMM, NCHW; y joins through v.
  for (Variant var : {Variant{.poolU = true}, Variant{.exposeU = true}}) {
    const ir::Graph held = bottleneck(1, rng, var);
    const Joined p = runBottleneck(held, feedsFor(held, rng), 1, true);
    CHECK(p.stats.oneDnnJoins == 1);
    CHECK(p.stats.blockedTensors == 1);  // v
  }
  const ir::Graph g = bottleneck(1, rng);
  const auto feeds = feedsFor(g, rng);
  CHECK(runBottleneck(g, feeds, 1, true, runtime::ConvAlgoRequest::Gemm).stats.oneDnnJoins == 0);
  // Unfused (-o0): each conv's output feeds a bias_add kernel, no tensor links two convs.
  CHECK(runBottleneck(g, feeds, 1, true, runtime::ConvAlgoRequest::Auto, false).stats.oneDnnJoins == 0);
}

namespace {

// img [1, 16, 24, 24] -> s = 3x3(img) + b (no relu, which would turn a NaN
// into 0) -> maxpool 3x3 stride 2 pad 1
// -> t = relu(3x3(.) + b) -> global_avg_pool; both convs on oneDNN (9 F(4x4)
// tiles at most). poolTwice: the max pool's output is also pooled (read by a
// non-convolution). nanAt: img pixel (row, column) of every channel is NaN.
ir::Graph stemAndPool(std::mt19937& rng, bool poolTwice, std::map<ValueId, ir::Tensor>& feeds, int nanAt = -1) {
  ir::Graph g;
  const ValueId img = g.addInput("img", {ir::DType::F32, {1, 16, 24, 24}});
  auto conv = [&](const std::string& name, ValueId x, bool relu) {
    const ValueId w = g.addParam(name + "_w", randomTensor({16, 16, 3, 3}, rng, -0.1f, 0.1f));
    const ValueId b = g.addParam(name + "_b", randomTensor({16}, rng));
    ValueId y = addOp(g, OpKind::Conv2d, name, {x, w},
                      {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}});
    y = addOp(g, OpKind::BiasAdd, name + "_bias", {y, b});
    return relu ? addOp(g, OpKind::Relu, name + "_relu", {y}) : y;
  };
  const ValueId pooled = addOp(g, OpKind::MaxPool2d, "pool", {conv("s", img, false)},
                               {{"kernel", std::vector<int64_t>{3, 3}},
                                {"stride", std::vector<int64_t>{2, 2}},
                                {"pad", std::vector<int64_t>{1, 1}}});
  g.outputs = {addOp(g, OpKind::GlobalAvgPool, "gap", {conv("t", pooled, true)})};
  if (poolTwice) g.outputs.push_back(addOp(g, OpKind::GlobalAvgPool, "gap_pool", {pooled}));
  ir::Tensor x = randomTensor({1, 16, 24, 24}, rng);
  if (nanAt >= 0)
    for (int64_t c = 0; c < 16; ++c) x.data<float>()[c * 576 + nanAt] = std::numeric_limits<float>::quiet_NaN();
  feeds[img] = std::move(x);
  return g;
}

}  // namespace

TEST_CASE("a max pool between oneDNN convolutions reads and writes channels-last, bit for bit", "[conv][onednn]") {
  std::mt19937 rng(67);
  // NaN at pixel (5, 7): s is NaN around it; windows meet it first and later.
  for (int nanAt : {-1, 5 * 24 + 7}) {
    std::map<ValueId, ir::Tensor> feeds;
    const ir::Graph g = stemAndPool(rng, false, feeds, nanAt);
    for (int threads : {1, 2, 3}) {
      INFO(threads << " threads, NaN at " << nanAt);
      const StepResult held = runStep(g, feeds, threads, true), plain = runStep(g, feeds, threads, false);
      CHECK(held.stats.blockedTensors == 2);  // s and the max pool's output
      CHECK(sameBits(held.outputs[0], plain.outputs[0]));
    }
  }
  // Its output also read by a pool: it cannot hold that side, so it holds neither, nor s.
  std::map<ValueId, ir::Tensor> feeds;
  const ir::Graph twice = stemAndPool(rng, true, feeds);
  const StepResult held = runStep(twice, feeds, 2, true), plain = runStep(twice, feeds, 2, false);
  CHECK(held.stats.blockedTensors == 0);
  for (size_t i = 0; i < held.outputs.size(); ++i) CHECK(sameBits(held.outputs[i], plain.outputs[i]));
}

TEST_CASE("a Winograd 3x3 feeding a oneDNN convolution joins it", "[conv][onednn]") {
  std::mt19937 rng(68);
  // 12 channels on 48 x 48: 144 F(4x4) tiles, where auto picks our Winograd
  // for the stride-1 3x3 (oneDNN's takes 16 channels or more); the stride-2
  // one after it runs on oneDNN.
  ir::Graph g;
  const ValueId img = g.addInput("img", {ir::DType::F32, {1, 12, 48, 48}});
  ValueId x = img;
  for (int64_t stride : {1, 2}) {
    const std::string name = "c" + std::to_string(stride);
    const ValueId w = g.addParam(name + "_w", randomTensor({12, 12, 3, 3}, rng, -0.1f, 0.1f));
    x = addOp(g, OpKind::Conv2d, name, {x, w},
              {{"stride", std::vector<int64_t>{stride, stride}}, {"pad", std::vector<int64_t>{1, 1}}});
    x = addOp(g, OpKind::Relu, name + "_relu", {x});
  }
  g.outputs = {addOp(g, OpKind::GlobalAvgPool, "gap", {x})};
  const auto feeds = feedsFor(g, rng);
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (const ir::Node& n : g.nodes)  // the premise: auto alone runs c1 on Winograd
    if (n.name == "c1")
      CHECK(runtime::chooseConvAlgo(*runtime::convShapeOf(g, n), runtime::ConvAlgoRequest::Auto) ==
            runtime::ConvAlgo::Winograd4);
  for (int threads : {1, 2, 3}) {
    const StepResult r = runStep(g, feeds, threads, true);
    CHECK(r.stats.oneDnnJoins == 1);
    CHECK(r.stats.blockedTensors == 1);
    CHECK(maxRelDiff(r.outputs[0], ref->at(g.outputs[0])) < 1e-5);
  }
}

TEST_CASE("a 1x1 adding a held residual on a 16 x 16 plane reads it in place, at every cut", "[conv][onednn]") {
  // x -> a = relu(3x3) -> s = 1x1(a) + b and u = relu(1x1(a) + b) -> y =
  // relu(1x1(u) + b + s) -> z = relu(3x3(y)) -> pool: s, u and y join oneDNN,
  // and y adds s, held, through a binary post-op (planes of 14 or more).
  std::mt19937 rng(69);
  ir::Graph g;
  const int64_t c = 32;
  const ValueId x = g.addInput("x", {ir::DType::F32, {1, c, 16, 16}});
  auto conv = [&](const std::string& name, ValueId in, int64_t k, ValueId skip, bool relu) {
    const ValueId w = g.addParam(name + "_w", randomTensor({c, c, k, k}, rng, -0.1f, 0.1f));
    ValueId y = addOp(g, OpKind::Conv2d, name, {in, w},
                      {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{k / 2, k / 2}}});
    y = addOp(g, OpKind::BiasAdd, name + "_bias", {y, g.addParam(name + "_b", randomTensor({c}, rng))});
    if (skip != ir::kNoValue) y = addOp(g, OpKind::Add, name + "_add", {y, skip});
    return relu ? addOp(g, OpKind::Relu, name + "_relu", {y}) : y;
  };
  const ValueId a = conv("a", x, 3, ir::kNoValue, true);
  const ValueId s = conv("s", a, 1, ir::kNoValue, false), u = conv("u", a, 1, ir::kNoValue, true);
  const ValueId y = conv("y", u, 1, s, true);
  g.outputs = {addOp(g, OpKind::GlobalAvgPool, "pool", {conv("z", y, 3, ir::kNoValue, true)})};
  const auto feeds = feedsFor(g, rng);
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  // 1 thread; 2 and 3: bands of rows (32 weights a channel against 256 pixels).
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const StepResult r = runStep(g, feeds, threads, true);
    CHECK(r.stats.oneDnnJoins == 3);
    CHECK(r.stats.blockedTensors == 4);  // a, s, u, y
    CHECK(maxRelDiff(r.outputs[0], ref->at(g.outputs[0])) < 1e-5);
  }
}

TEST_CASE("dilated convolutions with uneven pads are cut into bands of rows with the same bits", "[conv][onednn]") {
  // Two general convs (dilation 2), the second padded 2 above, 1 below: a
  // band's input rows and its padding follow the dilated kernel's reach.
  std::mt19937 rng(70);
  ir::Graph g;
  const ValueId img = g.addInput("img", {ir::DType::F32, {1, 8, 16, 16}});
  auto conv = [&](const std::string& name, ValueId x, std::vector<int64_t> pads) {
    const ValueId w = g.addParam(name + "_w", randomTensor({8, 8, 3, 3}, rng, -0.1f, 0.1f));
    const ValueId y = addOp(g, OpKind::Conv, name, {x, w},
                            {{"strides", std::vector<int64_t>{1, 1}},
                             {"pads", std::move(pads)},
                             {"dilations", std::vector<int64_t>{2, 2}},
                             {"group", int64_t{1}}});
    return addOp(g, OpKind::Relu, name + "_relu", {y});
  };
  const ValueId c1 = conv("c1", img, {2, 2, 2, 2});
  g.outputs = {addOp(g, OpKind::GlobalAvgPool, "gap", {conv("c2", c1, {2, 1, 1, 2})})};
  const auto feeds = feedsFor(g, rng);
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    const StepResult held = runStep(g, feeds, threads, true), plain = runStep(g, feeds, threads, false);
    CHECK(held.stats.blockedTensors == 1);  // c1's output
    CHECK(sameBits(held.outputs[0], plain.outputs[0]));
    CHECK(maxRelDiff(held.outputs[0], ref->at(g.outputs[0])) < 1e-5);
  }
}
