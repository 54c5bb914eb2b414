// Every convolution path the chooser (runtime/ConvAlgo.h) can take for a
// forward convolution, against the reference interpreter's direct loops
// (double sums): oneDNN (depthwise, grouped, dilated, strided, asymmetric
// pads, 7x7, with its bias epilogue), the 1x1 GEMM on the input and the direct
// loop under --conv-algo gemm, each at 1, 2 and 3 threads on batches of 5, 2
// and 1: oneDNN cuts a call by images when each thread gets one, else by
// groups or 16-channel blocks (kernels/OneDnnConv.h), so these take every cut.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"
#include "runtime/kernels/OneDnnConv.h"
#include "runtime/kernels/Pointwise.h"
#include "runtime/kernels/StemConv.h"

using namespace dfc;
using namespace dfc::runtime;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

// oneDNN and the GEMMs sum in float, in another order than the reference's double sums.
constexpr double kTolerance = 1e-5;
// 5 divides evenly by neither 2 nor 3 threads; 2 at 3 threads and 1 at 2 or 3 cut by channels.
constexpr int64_t kBatches[] = {5, 2, 1};

struct Geometry {
  int64_t c, o, h, w, k, stride, dilation, group;
  std::vector<int64_t> pads;  // top, left, bottom, right
};

ir::Attributes generalAttrs(const Geometry& g) {
  return {{"strides", std::vector<int64_t>{g.stride, g.stride}},
          {"pads", g.pads},
          {"dilations", std::vector<int64_t>{g.dilation, g.dilation}},
          {"group", g.group}};
}

ir::Attributes conv2dAttrs(const Geometry& g) {
  return {{"stride", std::vector<int64_t>{g.stride, g.stride}}, {"pad", std::vector<int64_t>{g.pads[0], g.pads[1]}}};
}

// One conv node (bias_add after it when `withBias`) on random data, its
// reference result, and the runtime kernel's under a request and pool size.
struct ConvCase {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::ValueId out = ir::kNoValue;
  bool withBias;

  ConvCase(OpKind op, const Geometry& g, bool bias, std::mt19937& rng, int64_t batch = 5) : withBias(bias) {
    auto input = [&](const std::string& name, ir::Shape shape) {
      ir::Tensor t = randomTensor(std::move(shape), rng);
      const ir::ValueId v = graph.addInput(name, t.type());
      feeds[v] = std::move(t);
      return v;
    };
    const ir::ValueId x = input("x", {batch, g.c, g.h, g.w}), w = input("w", {g.o, g.c / g.group, g.k, g.k});
    out = addOp(graph, op, "conv", {x, w}, op == OpKind::Conv ? generalAttrs(g) : conv2dAttrs(g));
    if (bias) out = addOp(graph, OpKind::BiasAdd, "bias_add", {out, input("b", {g.o})});
  }

  // The shape as a kernel told its weight is stable sees it (checkPath runs it so).
  ConvShape shape() const {
    ConvShape s = *convShapeOf(graph, graph.nodes[0]);
    s.stableWeights = true;
    return s;
  }

  ir::Tensor reference() const {
    auto ref = referenceEvaluate(graph, feeds);
    REQUIRE(ref.ok());
    return ref->at(out);
  }

  ir::Tensor run(ConvAlgoRequest request, int threads, bool stableWeights = false) const {
    const ir::Node& node = graph.nodes[0];
    std::vector<const ir::Tensor*> in{&feeds.at(node.inputs[0]), &feeds.at(node.inputs[1])};
    ir::Tensor conv(graph.value(node.outputs[0]).type), result(graph.value(out).type);
    ir::Tensor* outs[] = {&conv};
    auto kernel = prepareKernel(node, in, outs);
    REQUIRE(kernel.ok());
    if (withBias) REQUIRE((*kernel)->takeBiasEpilogue(feeds.at(graph.nodes[1].inputs[1]), result));
    if (stableWeights) (*kernel)->markStableInput(1);
    support::ThreadPool pool(threads);
    ExecContext ctx(pool);
    ctx.setConvAlgo(request);
    const Status status = (*kernel)->run(ctx);
    INFO((status.ok() ? std::string() : status.error().message()));
    REQUIRE(status.ok());
    return withBias ? result : conv;
  }
};

double relError(const ir::Tensor& got, const ir::Tensor& want) {
  double err = 0, scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    err = std::max(err, std::abs(double(got.data<float>()[i]) - want.data<float>()[i]));
    scale = std::max(scale, std::abs(double(want.data<float>()[i])));
  }
  return err / std::max(scale, 1e-30);
}

// The case runs with `algo` under `request`, and matches the reference at 1, 2 and 3 threads.
void checkCase(const ConvCase& c, ConvAlgoRequest request, ConvAlgo algo) {
  REQUIRE(chooseConvAlgo(c.shape(), request) == algo);
  const ir::Tensor want = c.reference();
  for (int threads : {1, 2, 3}) {
    INFO(convAlgoName(algo) << " at " << threads << " threads");
    CHECK(relError(c.run(request, threads, true), want) < kTolerance);
  }
}

// checkCase at each of kBatches, on fresh random data.
void checkPath(OpKind op, const Geometry& g, bool bias, std::mt19937& rng, ConvAlgoRequest request, ConvAlgo algo) {
  for (int64_t batch : kBatches) {
    INFO("batch " << batch);
    checkCase(ConvCase(op, g, bias, rng, batch), request, algo);
  }
}

// Each conv2d geometry, without and with a bias, through checkPath under auto.
void checkAutoPaths(std::initializer_list<Geometry> geometries, std::mt19937& rng, ConvAlgo algo) {
  for (const Geometry& g : geometries)
    for (bool bias : {false, true}) {
      INFO(g.c << " -> " << g.o << " on " << g.h << " x " << g.w << ", " << g.k << "x" << g.k << " stride " << g.stride
               << " pad " << g.pads[0] << " bias " << bias);
      checkPath(OpKind::Conv2d, g, bias, rng, ConvAlgoRequest::Auto, algo);
    }
}

// The general op's shapes, one per attribute value the chooser tells apart.
const Geometry kDepthwise{12, 12, 9, 11, 3, 1, 1, 12, {1, 1, 1, 1}};
const Geometry kDepthwiseStrided{8, 16, 10, 7, 3, 2, 1, 8, {1, 1, 1, 1}};  // two outputs per channel
const Geometry kGrouped{6, 9, 8, 8, 3, 1, 1, 3, {1, 1, 1, 1}};
const Geometry kDilated{5, 7, 13, 12, 3, 1, 2, 1, {2, 2, 2, 2}};
const Geometry kDilatedStrided{4, 6, 15, 15, 3, 2, 4, 1, {4, 4, 4, 4}};
const Geometry kAsymmetric{3, 5, 7, 9, 3, 2, 1, 1, {0, 1, 1, 0}};  // TF-style SAME on an odd input

}  // namespace

TEST_CASE("general conv runs on oneDNN with its bias epilogue and matches the reference", "[kernels][conv][onednn]") {
  std::mt19937 rng(31);
  for (const Geometry& g : {kGrouped, kDilated, kDilatedStrided, kAsymmetric})
    for (bool bias : {false, true}) {
      INFO("c " << g.c << " o " << g.o << " k " << g.k << " stride " << g.stride << " dilation " << g.dilation
                << " group " << g.group << " bias " << bias);
      checkPath(OpKind::Conv, g, bias, rng, ConvAlgoRequest::Auto, ConvAlgo::OneDnn);
    }
  // Depthwise ones too when oneDNN is asked for.
  for (const Geometry& g : {kDepthwise, kDepthwiseStrided})
    checkPath(OpKind::Conv, g, true, rng, ConvAlgoRequest::OneDnn, ConvAlgo::OneDnn);
}

TEST_CASE("depthwise conv runs on the NCHW depthwise kernel and matches the reference", "[kernels][conv]") {
  std::mt19937 rng(36);
  // Each attribute value the kernel branches on: a 3-wide kernel row (one
  // pass) or not (one pass a tap), stride 1 or 2 (one phase plane or four),
  // dilation, asymmetric pads, a depth multiplier of 2, a plane narrower than a vector.
  const Geometry dilated{6, 6, 12, 13, 3, 1, 2, 6, {2, 2, 2, 2}};
  const Geometry fiveByFiveStrided{5, 5, 13, 11, 5, 2, 1, 5, {2, 2, 2, 2}};
  const Geometry asymmetric{4, 4, 7, 9, 3, 2, 1, 4, {0, 1, 1, 0}};
  const Geometry onePixel{3, 3, 6, 5, 1, 1, 1, 3, {0, 0, 0, 0}};  // 1x1: a single tap
  const Geometry stridedDilated{4, 8, 15, 14, 3, 3, 2, 4, {1, 2, 3, 0}};
  for (const Geometry& g :
       {kDepthwise, kDepthwiseStrided, dilated, fiveByFiveStrided, asymmetric, onePixel, stridedDilated})
    for (bool bias : {false, true}) {
      INFO("c " << g.c << " o " << g.o << " k " << g.k << " stride " << g.stride << " dilation " << g.dilation
                << " bias " << bias);
      checkPath(OpKind::Conv, g, bias, rng, ConvAlgoRequest::Auto, ConvAlgo::Depthwise);
    }
}

TEST_CASE("general conv under --conv-algo gemm runs the direct loop", "[kernels][conv]") {
  std::mt19937 rng(32);
  for (const Geometry& g : {kDepthwise, kDilated, kAsymmetric})
    for (bool bias : {false, true}) checkPath(OpKind::Conv, g, bias, rng, ConvAlgoRequest::Gemm, ConvAlgo::Direct);
}

TEST_CASE("conv2d strided and 7x7 run on oneDNN with the bias epilogue", "[kernels][conv][onednn]") {
  std::mt19937 rng(33);
  const Geometry strided3x3{6, 10, 11, 9, 3, 2, 1, 1, {1, 1, 1, 1}};
  const Geometry stem7x7{3, 8, 17, 16, 7, 2, 1, 1, {3, 3, 3, 3}};
  // 40 outputs: three 16-channel blocks, the last ragged, cut 1 + 2 at 2 threads, 1 + 1 + 1 at 3.
  const Geometry strided3x3Wide{6, 40, 9, 9, 3, 2, 1, 1, {1, 1, 1, 1}};
  checkAutoPaths({strided3x3, stem7x7, strided3x3Wide}, rng, ConvAlgo::OneDnn);
}

TEST_CASE("conv2d 3x3 stride 1 on 16 channels or more runs on oneDNN's Winograd with the bias epilogue",
          "[kernels][conv][onednn]") {
  // Exactly 16 input channels, pad 1, on a plane no tile size divides;
  // 40 outputs cut by 16-channel blocks, the last ragged; pad 0; 4 x 4 outputs
  // from many channels (F(4x4) or F(2x2), as oneDNN picks).
  const std::initializer_list<Geometry> shapes{{16, 24, 9, 13, 3, 1, 1, 1, {1, 1, 1, 1}},
                                               {20, 40, 11, 10, 3, 1, 1, 1, {1, 1, 1, 1}},
                                               {24, 32, 10, 9, 3, 1, 1, 1, {0, 0, 0, 0}},
                                               {160, 144, 6, 6, 3, 1, 1, 1, {0, 0, 0, 0}}};
  std::mt19937 rng(39);
  if (kernels::oneDnnWinogradAvailable())
    checkAutoPaths(shapes, rng, ConvAlgo::OneDnnWinograd);
  else
    WARN("oneDNN has no Winograd convolution on this CPU");
}

TEST_CASE("conv2d 1x1 with a stride is one GEMM on the subsampled input, or oneDNN when asked", "[kernels][conv]") {
  std::mt19937 rng(38);
  // Stride 2 on an odd plane (the last column and row read), stride 3 on a plane it does not divide.
  const Geometry strided2{7, 9, 9, 9, 1, 2, 1, 1, {0, 0, 0, 0}};
  const Geometry strided3{5, 16, 10, 11, 1, 3, 1, 1, {0, 0, 0, 0}};
  for (const Geometry& g : {strided2, strided3})
    for (bool bias : {false, true}) {
      INFO("stride " << g.stride << " bias " << bias);
      checkPath(OpKind::Conv2d, g, bias, rng, ConvAlgoRequest::Auto, ConvAlgo::Gemm);
      checkPath(OpKind::Conv2d, g, bias, rng, ConvAlgoRequest::OneDnn, ConvAlgo::OneDnn);
    }
  // Padded, it is no subsample: oneDNN.
  const Geometry padded{4, 8, 9, 9, 1, 2, 1, 1, {1, 1, 1, 1}};
  checkPath(OpKind::Conv2d, padded, true, rng, ConvAlgoRequest::Auto, ConvAlgo::OneDnn);
}

TEST_CASE("conv2d 1x1 stride 1 is one GEMM on the input", "[kernels][conv]") {
  std::mt19937 rng(34);
  // A projection (fewer outputs than inputs) on 81 pixels: the GEMM under auto
  // (on AMD the pointwise kernel, where there is AVX-512); on 9 pixels, under
  // a vector, the GEMM on every CPU.
  const Geometry pointwise{13, 6, 9, 9, 1, 1, 1, 1, {0, 0, 0, 0}}, nine{13, 6, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}};
  const bool kernelTakes = pointwiseTakesEveryPlane() && kernels::pointwiseConvAvailable();
  for (bool bias : {false, true}) {
    checkPath(OpKind::Conv2d, pointwise, bias, rng, ConvAlgoRequest::Auto,
              kernelTakes ? ConvAlgo::Pointwise : ConvAlgo::Gemm);
    checkPath(OpKind::Conv2d, nine, bias, rng, ConvAlgoRequest::Auto, ConvAlgo::Gemm);
  }
  // Under --conv-algo onednn the same conv runs on oneDNN.
  checkPath(OpKind::Conv2d, pointwise, true, rng, ConvAlgoRequest::OneDnn, ConvAlgo::OneDnn);
}

TEST_CASE("conv2d 1x1 on small planes or expanding few channels runs on the pointwise kernel", "[kernels][conv]") {
  if (!kernels::pointwiseConvAvailable()) {
    WARN("no AVX-512F: the pointwise kernel does not run here");
    return;
  }
  std::mt19937 rng(38);
  // Each pixel count the kernel splits differently: 49 (a 48-pixel tile and
  // one column), 196 (four tiles, four columns), 20 (four columns, then one
  // whole vector), 58 (a tile, one vector masked to 10 lanes), 37 (three
  // vectors, the last masked), 69 (a tile, two vectors, the last masked), 64
  // (a tile and one whole vector); output channels a multiple of
  // the 8-channel panel or not; input channels a multiple of 4 or not (the
  // columns' four sums).
  const std::vector<Geometry> cases{{7, 13, 7, 7, 1, 1, 1, 1, {0, 0, 0, 0}},  {5, 24, 14, 14, 1, 1, 1, 1, {0, 0, 0, 0}},
                                    {3, 8, 4, 5, 1, 1, 1, 1, {0, 0, 0, 0}},   {8, 17, 2, 29, 1, 1, 1, 1, {0, 0, 0, 0}},
                                    {6, 19, 1, 37, 1, 1, 1, 1, {0, 0, 0, 0}}, {8, 17, 3, 23, 1, 1, 1, 1, {0, 0, 0, 0}},
                                    {12, 16, 8, 8, 1, 1, 1, 1, {0, 0, 0, 0}}};
  for (const Geometry& g : cases)
    for (bool bias : {false, true}) {
      INFO("c " << g.c << " o " << g.o << " h " << g.h << " w " << g.w << " bias " << bias);
      checkPath(OpKind::Conv2d, g, bias, rng, ConvAlgoRequest::Auto, ConvAlgo::Pointwise);
    }
  // A projection runs there only when the batch has at most 64 pixels: one 7 x 7 image.
  const Geometry projection{130, 9, 7, 7, 1, 1, 1, 1, {0, 0, 0, 0}};
  for (bool bias : {false, true})
    checkCase(ConvCase(OpKind::Conv2d, projection, bias, rng, 1), ConvAlgoRequest::Auto, ConvAlgo::Pointwise);
}

TEST_CASE("conv2d 3x3 stride 2 on at most 4 channels runs on the stem kernel", "[kernels][conv]") {
  if (!kernels::stemConvAvailable()) {
    WARN("no AVX-512F: the stem kernel does not run here");
    return;
  }
  std::mt19937 rng(37);
  // Each value the kernel branches on: pad 1 or 0, 1 to 4 channels, output
  // rows of one ragged vector (7 columns), exactly one (16), two with a
  // ragged tail (19) and three (35), 16 output channels (one block) or 40
  // (the last block ragged), odd and even image sides.
  const Geometry rgb{3, 32, 15, 14, 3, 2, 1, 1, {1, 1, 1, 1}};
  const Geometry oneRow{4, 16, 6, 32, 3, 2, 1, 1, {1, 1, 1, 1}};
  const Geometry unpadded{1, 40, 37, 40, 3, 2, 1, 1, {0, 0, 0, 0}};
  const Geometry wide{2, 17, 9, 70, 3, 2, 1, 1, {1, 1, 1, 1}};
  checkAutoPaths({rgb, oneRow, unpadded, wide}, rng, ConvAlgo::Stem);
  // Under --conv-algo onednn and gemm the same conv runs there.
  checkPath(OpKind::Conv2d, rgb, true, rng, ConvAlgoRequest::OneDnn, ConvAlgo::OneDnn);
  checkPath(OpKind::Conv2d, rgb, true, rng, ConvAlgoRequest::Gemm, ConvAlgo::Gemm);
}

TEST_CASE("oneDNN reads the weights each run unless they are stable", "[kernels][conv][onednn]") {
  std::mt19937 rng(35);
  ConvCase c(OpKind::Conv, kDilated, false, rng);
  const ir::Node& node = c.graph.nodes[0];
  ir::Tensor& w = c.feeds.at(node.inputs[1]);
  std::vector<const ir::Tensor*> in{&c.feeds.at(node.inputs[0]), &w};
  ir::Tensor y(c.graph.value(node.outputs[0]).type);
  ir::Tensor* outs[] = {&y};
  for (bool stable : {false, true}) {
    auto kernel = prepareKernel(node, in, outs);
    REQUIRE(kernel.ok());
    if (stable) (*kernel)->markStableInput(1);
    support::ThreadPool pool(2);
    ExecContext ctx(pool);
    const ir::Tensor before = c.reference();
    REQUIRE((*kernel)->run(ctx).ok());
    CHECK(relError(y, before) < kTolerance);
    for (float& v : w.span<float>()) v = -2 * v;  // a new weight between runs
    REQUIRE((*kernel)->run(ctx).ok());
    // Not stable: the new weights; stable: the copy taken on the first run.
    CHECK(relError(y, stable ? before : c.reference()) < kTolerance);
  }
}

TEST_CASE("the conv chooser branches on group, dilation, pads, kernel, stride and stable weights", "[conv][onednn]") {
  auto general = [](int64_t c, int64_t group, int64_t dilation, std::vector<int64_t> pads) {
    ConvShape s{ConvPassKind::Forward, 1, c, 16, 16, c, 3, 3, 1, 1, pads[0], pads[1], 16, 16};
    s.group = group, s.dh = s.dw = dilation, s.pb = pads[2], s.pr = pads[3], s.general = true;
    return s;
  };
  const auto auto_ = ConvAlgoRequest::Auto, gemm = ConvAlgoRequest::Gemm;
  CHECK(std::string(explainConvAlgo(general(8, 8, 1, {1, 1, 1, 1}), ConvAlgoRequest::OneDnn).why) == "depthwise");
  CHECK(chooseConvAlgo(general(8, 8, 1, {1, 1, 1, 1}), auto_) == ConvAlgo::Depthwise);
  CHECK(std::string(explainConvAlgo(general(8, 2, 1, {1, 1, 1, 1}), auto_).why) == "grouped");
  CHECK(std::string(explainConvAlgo(general(8, 1, 2, {2, 2, 2, 2}), auto_).why) == "dilated");
  CHECK(std::string(explainConvAlgo(general(8, 1, 1, {0, 1, 1, 0}), auto_).why) == "asymmetric pads");
  for (int64_t group : {1, 2, 8}) {
    CHECK(chooseConvAlgo(general(8, group, 2, {2, 2, 2, 2}), auto_) ==
          (group == 8 ? ConvAlgo::Depthwise : ConvAlgo::OneDnn));
    CHECK(chooseConvAlgo(general(8, group, 2, {2, 2, 2, 2}), ConvAlgoRequest::OneDnn) == ConvAlgo::OneDnn);
    CHECK(chooseConvAlgo(general(8, group, 2, {2, 2, 2, 2}), ConvAlgoRequest::Winograd4) == ConvAlgo::OneDnn);
    CHECK(chooseConvAlgo(general(8, group, 2, {2, 2, 2, 2}), gemm) == ConvAlgo::Direct);
  }
  auto conv2d = [](int64_t c, int64_t side, int64_t k, int64_t stride, int64_t pad) {
    const int64_t out = (side + 2 * pad - k) / stride + 1;
    ConvShape s{ConvPassKind::Forward, 1, c, side, side, c, k, k, stride, stride, pad, pad, out, out};
    s.stableWeights = true;  // inference
    return s;
  };
  // 1x1 on the input: the pointwise kernel (AVX-512) on planes of at most 64
  // pixels and for expansions from at most 128 channels, else the GEMM; on
  // AMD, every plane of at least 16 pixels (`large`: what the rest would take).
  const ConvAlgo pointwise = kernels::pointwiseConvAvailable() ? ConvAlgo::Pointwise : ConvAlgo::Gemm;
  const ConvAlgo large = pointwiseTakesEveryPlane() ? pointwise : ConvAlgo::Gemm;
  CHECK(chooseConvAlgo(conv2d(64, 56, 1, 1, 0), auto_) == large);           // 64 -> 64 on 56 x 56
  CHECK(chooseConvAlgo(conv2d(512, 8, 1, 1, 0), auto_) == pointwise);       // 64 pixels
  ConvShape twoSmall = conv2d(512, 7, 1, 1, 0);
  twoSmall.n = 2;  // 98 pixels in the batch: the GEMM runs the images side by side
  CHECK(chooseConvAlgo(twoSmall, auto_) == large);
  CHECK(chooseConvAlgo(conv2d(512, 9, 1, 1, 0), auto_) == large);           // 81 pixels
  CHECK(chooseConvAlgo(conv2d(16, 4, 1, 1, 0), auto_) == pointwise);        // 16 pixels
  CHECK(chooseConvAlgo(conv2d(16, 3, 1, 1, 0), auto_) == ConvAlgo::Gemm);   // 9 pixels: under a vector
  ConvShape expand = conv2d(128, 28, 1, 1, 0);
  expand.o = 129;
  CHECK(chooseConvAlgo(expand, auto_) == pointwise);
  expand.c = 129, expand.o = 1000;
  CHECK(chooseConvAlgo(expand, auto_) == large);  // 129 input channels
  expand.stableWeights = false;
  expand.c = 16;
  CHECK(chooseConvAlgo(expand, auto_) == ConvAlgo::Gemm);                   // training: the weights change every step
  CHECK(chooseConvAlgo(conv2d(64, 56, 1, 2, 0), auto_) == ConvAlgo::Gemm);  // 1x1 stride 2: subsample + GEMM
  CHECK(chooseConvAlgo(conv2d(64, 56, 1, 1, 1), auto_) == ConvAlgo::OneDnn);     // 1x1 padded
  // A 3x3 stride-1 one: oneDNN's Winograd where the CPU has it, from 16
  // input channels, 4 x 4 outputs, pads of at most 1; else ours with 128
  // F(4x4) tiles or more, else oneDNN's direct conv.
  const bool oneDnnWino = kernels::oneDnnWinogradAvailable();
  auto or_ = [&](ConvAlgo otherwise) { return oneDnnWino ? ConvAlgo::OneDnnWinograd : otherwise; };
  CHECK(chooseConvAlgo(conv2d(64, 56, 3, 1, 1), auto_) == or_(ConvAlgo::Winograd4));  // 196 F(4x4) tiles
  CHECK(chooseConvAlgo(conv2d(64, 44, 3, 1, 1), auto_) == or_(ConvAlgo::OneDnn));     // 121 tiles: too few
  ConvShape twoImages = conv2d(64, 32, 3, 1, 1);
  twoImages.n = 2;  // 2 x 8 x 8: exactly kWinogradMinTiles
  CHECK(chooseConvAlgo(twoImages, auto_) == or_(ConvAlgo::Winograd4));
  CHECK(chooseConvAlgo(conv2d(16, 20, 3, 1, 1), auto_) == or_(ConvAlgo::OneDnn));     // 16 channels
  CHECK(chooseConvAlgo(conv2d(15, 20, 3, 1, 1), auto_) == ConvAlgo::OneDnn);          // 15: oneDNN's direct conv
  CHECK(chooseConvAlgo(conv2d(15, 56, 3, 1, 1), auto_) == ConvAlgo::Winograd4);       // 15, 196 tiles: ours
  CHECK(chooseConvAlgo(conv2d(64, 4, 3, 1, 1), auto_) == or_(ConvAlgo::OneDnn));      // 4 x 4 outputs
  CHECK(chooseConvAlgo(conv2d(64, 3, 3, 1, 1), auto_) == ConvAlgo::OneDnn);           // 3 x 3
  CHECK(chooseConvAlgo(conv2d(64, 58, 3, 1, 0), auto_) == or_(ConvAlgo::Winograd4));  // pad 0, 56 x 56
  CHECK(chooseConvAlgo(conv2d(64, 54, 3, 1, 2), auto_) == ConvAlgo::Winograd4);       // pad 2: ours
  ConvShape wide = conv2d(64, 56, 3, 1, 1);
  wide.w = wide.ow = 3;  // 56 x 3 outputs
  CHECK(chooseConvAlgo(wide, auto_) != ConvAlgo::OneDnnWinograd);
  CHECK(chooseConvAlgo(conv2d(64, 56, 3, 2, 1), auto_) == ConvAlgo::OneDnn);
  CHECK(chooseConvAlgo(conv2d(3, 224, 7, 2, 3), auto_) == ConvAlgo::OneDnn);
  // The stem kernel: 3x3, stride 2, pad 0 or 1, at most 4 input channels, an AVX-512 CPU.
  const ConvAlgo stem = kernels::stemConvAvailable() ? ConvAlgo::Stem : ConvAlgo::OneDnn;
  CHECK(chooseConvAlgo(conv2d(3, 224, 3, 2, 1), auto_) == stem);
  CHECK(chooseConvAlgo(conv2d(4, 224, 3, 2, 0), auto_) == stem);
  CHECK(chooseConvAlgo(conv2d(5, 224, 3, 2, 1), auto_) == ConvAlgo::OneDnn);  // 5 channels
  CHECK(chooseConvAlgo(conv2d(3, 224, 3, 2, 2), auto_) == ConvAlgo::OneDnn);  // pad 2
  CHECK(chooseConvAlgo(conv2d(3, 224, 3, 1, 1), auto_) != ConvAlgo::Stem);    // stride 1
  CHECK(chooseConvAlgo(conv2d(3, 224, 3, 2, 1), ConvAlgoRequest::OneDnn) == ConvAlgo::OneDnn);
  CHECK(chooseConvAlgo(conv2d(3, 224, 3, 2, 1), gemm) == ConvAlgo::Gemm);
  CHECK(chooseConvAlgo(conv2d(64, 56, 3, 2, 1), gemm) == ConvAlgo::Gemm);
  CHECK(chooseConvAlgo(conv2d(64, 56, 3, 1, 1), ConvAlgoRequest::OneDnn) == ConvAlgo::OneDnn);
  // Weights a training step changes: auto keeps GEMM and Winograd (no oneDNN allocations in the step).
  ConvShape training = conv2d(64, 56, 3, 2, 1);
  training.stableWeights = false;
  CHECK(chooseConvAlgo(training, auto_) == ConvAlgo::Gemm);
  training = conv2d(64, 44, 3, 1, 1);
  training.stableWeights = false;
  CHECK(chooseConvAlgo(training, auto_) == ConvAlgo::Winograd4);
  CHECK(chooseConvAlgo(training, ConvAlgoRequest::OneDnn) == ConvAlgo::OneDnn);
  CHECK(chooseConvAlgo(conv2d(64, 56, 3, 1, 1), ConvAlgoRequest::Winograd2) == ConvAlgo::Winograd2);
  ConvShape gradInput = conv2d(64, 56, 3, 2, 1);
  gradInput.pass = ConvPassKind::GradInput;
  CHECK(chooseConvAlgo(gradInput, ConvAlgoRequest::OneDnn) == ConvAlgo::Gemm);  // oneDNN: forward only
  CHECK(parseConvAlgoRequest("--conv-algo", "onednn").value() == ConvAlgoRequest::OneDnn);
}
