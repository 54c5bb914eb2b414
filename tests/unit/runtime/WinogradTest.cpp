// Winograd F(2x2,3x3) and F(4x4,3x3) against the reference interpreter's
// direct convolution (forward, input gradient, bias epilogue), and the rule
// that picks GEMM or Winograd per convolution.
#include <catch2/catch.hpp>

#include <cstring>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

ir::Attributes convAttrs(int64_t pad, const std::string& shapeKey = "", ir::Shape shape = {}) {
  ir::Attributes a{{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{pad, pad}}};
  if (!shapeKey.empty()) a[shapeKey] = shape;
  return a;
}

// A one-node graph over inputs `ins` (bias_add after it when `bias` is given), its reference result, and
// the runtime kernel's result under `request` on a pool of `threads`.
struct ConvCheck {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::ValueId out = ir::kNoValue;

  ConvCheck(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs, const ir::Tensor* bias) {
    std::vector<ir::ValueId> ids;
    for (size_t i = 0; i < ins.size(); ++i) {
      ids.push_back(graph.addInput("in" + std::to_string(i), ins[i].type()));
      feeds[ids.back()] = ins[i];
    }
    out = addOp(graph, op, "conv", ids, attrs);
    if (bias) {
      ir::ValueId b = graph.addInput("bias", bias->type());
      feeds[b] = *bias;
      out = addOp(graph, OpKind::BiasAdd, "bias_add", {out, b});
    }
  }

  ir::Tensor reference() const {
    auto ref = referenceEvaluate(graph, feeds);
    REQUIRE(ref.ok());
    return ref->at(out);
  }

  ir::Tensor run(ConvAlgoRequest request, int threads) const {
    const ir::Node& node = graph.nodes[0];
    std::vector<const ir::Tensor*> in;
    for (ir::ValueId v : node.inputs) in.push_back(&feeds.at(v));
    ir::Tensor conv(graph.value(node.outputs[0]).type), result(graph.value(out).type);
    ir::Tensor* outs[] = {&conv};
    auto kernel = prepareKernel(node, in, outs);
    REQUIRE(kernel.ok());
    const bool withBias = graph.nodes.size() > 1;
    if (withBias) REQUIRE((*kernel)->takeBiasEpilogue(feeds.at(graph.nodes[1].inputs[1]), result));
    support::ThreadPool pool(threads);
    ExecContext ctx(pool);
    ctx.setConvAlgo(request);
    REQUIRE((*kernel)->run(ctx).ok());
    return withBias ? result : conv;
  }
};

// Largest |a - b| relative to b's largest magnitude.
double relError(const ir::Tensor& got, const ir::Tensor& want) {
  double err = 0, scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    err = std::max(err, std::abs(double(got.data<float>()[i]) - want.data<float>()[i]));
    scale = std::max(scale, std::abs(double(want.data<float>()[i])));
  }
  return err / std::max(scale, 1e-30);
}

struct Case {
  ir::Shape x;
  int64_t outChannels, pad;
};

// Odd sizes, padding 0 to 2, channel counts that are multiples of nothing, batch 1 and more;
// {1, 2, 3, 3} has a single output pixel and the one before it a partial tile on both edges;
// the last two have more than the 512 channels the weight transform takes at once, in and out.
const Case kCases[] = {{{1, 3, 7, 9}, 5, 0},  {{2, 17, 11, 8}, 19, 1}, {{3, 5, 6, 13}, 4, 2},
                       {{1, 23, 5, 5}, 7, 1}, {{2, 6, 10, 7}, 11, 1},  {{1, 2, 3, 3}, 3, 0},
                       {{1, 530, 4, 4}, 3, 1}, {{1, 3, 4, 4}, 530, 1}};

const ConvAlgoRequest kWinograd[] = {ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4};

// Error bounds relative to the output's largest magnitude: F(4x4)'s transforms
// (coefficients up to 8 and 1/24) lose about a decimal digit more than F(2x2)'s.
double tolerance(ConvAlgoRequest algo) { return algo == ConvAlgoRequest::Winograd4 ? 1e-5 : 1e-6; }

void checkBothTileSizes(const ConvCheck& check, const Case& c) {
  const ir::Tensor want = check.reference();
  for (ConvAlgoRequest algo : kWinograd) {
    INFO("x " << (ir::TensorType{ir::DType::F32, c.x}.toString()) << " pad " << c.pad << " " << convAlgoRequestName(algo));
    CHECK(relError(check.run(algo, 1), want) < tolerance(algo));
  }
}

}  // namespace

TEST_CASE("winograd conv2d forward matches the direct reference", "[kernels][conv][winograd]") {
  std::mt19937 rng(11);
  for (const Case& c : kCases) {
    ir::Tensor x = randomTensor(c.x, rng), w = randomTensor({c.outChannels, c.x[1], 3, 3}, rng);
    checkBothTileSizes(ConvCheck(OpKind::Conv2d, {x, w}, convAttrs(c.pad), nullptr), c);
  }
}

TEST_CASE("winograd conv2d input gradient matches the direct reference", "[kernels][conv][winograd]") {
  std::mt19937 rng(12);
  for (const Case& c : kCases) {
    const int64_t oh = c.x[2] + 2 * c.pad - 2, ow = c.x[3] + 2 * c.pad - 2;
    ir::Tensor dy = randomTensor({c.x[0], c.outChannels, oh, ow}, rng), w = randomTensor({c.outChannels, c.x[1], 3, 3}, rng);
    checkBothTileSizes(ConvCheck(OpKind::Conv2dGradInput, {dy, w}, convAttrs(c.pad, "input_shape", c.x), nullptr), c);
  }
}

TEST_CASE("winograd takes the bias epilogue and its result does not depend on the pool size", "[kernels][conv][winograd]") {
  std::mt19937 rng(13);
  // 6 images of 20x20: 600 F(2x2) or 150 F(4x4) tiles, transforms and GEMMs split over the pool.
  ir::Tensor x = randomTensor({6, 9, 20, 20}, rng), w = randomTensor({13, 9, 3, 3}, rng), b = randomTensor({13}, rng);
  ConvCheck check(OpKind::Conv2d, {x, w}, convAttrs(1), &b);
  const ir::Tensor want = check.reference();
  for (ConvAlgoRequest algo : kWinograd) {
    const ir::Tensor one = check.run(algo, 1);
    CHECK(relError(one, want) < tolerance(algo));
    for (int threads : {2, 3}) {
      const ir::Tensor more = check.run(algo, threads);
      CHECK(std::memcmp(one.bytes(), more.bytes(), one.byteSize()) == 0);
    }
  }
}

TEST_CASE("the conv algorithm follows the shape, the request and the F(4x4) error bound", "[conv][winograd]") {
  auto shape = [](ConvPassKind pass, int64_t c, int64_t o, int64_t side, int64_t k, int64_t stride, int64_t pad) {
    const int64_t out = (side + 2 * pad - k) / stride + 1;
    return ConvShape{pass, 8, c, side, side, o, k, k, stride, stride, pad, pad, out, out};
  };
  const auto fwd = ConvPassKind::Forward, gi = ConvPassKind::GradInput;
  // ResNet-18's 3x3 stride-1 layers.
  CHECK(chooseConvAlgo(shape(fwd, 64, 64, 56, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd4);
  CHECK(chooseConvAlgo(shape(fwd, 128, 128, 28, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd4);
  // 256 and 512 channels: past F(4x4)'s error bound, F(2x2).
  CHECK(chooseConvAlgo(shape(fwd, 512, 512, 7, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd2);
  // A 2x2 output is one F(2x2) tile: F(4x4) would compute 16 pixels for 4.
  CHECK(chooseConvAlgo(shape(fwd, 512, 512, 2, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd2);
  CHECK(chooseConvAlgo(shape(gi, 256, 256, 14, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd2);
  CHECK(chooseConvAlgo(shape(gi, 64, 128, 28, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd4);
  // Few channels (the transforms dominate), a 1x1 output: GEMM.
  CHECK(chooseConvAlgo(shape(fwd, 3, 64, 56, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Gemm);
  CHECK(chooseConvAlgo(shape(fwd, 8, 8, 56, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Gemm);
  CHECK(chooseConvAlgo(shape(fwd, 512, 512, 1, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Gemm);
  // What Winograd cannot run stays on GEMM whatever is asked.
  for (auto request : {ConvAlgoRequest::Auto, ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4}) {
    CHECK(chooseConvAlgo(shape(fwd, 64, 64, 56, 3, 2, 1), request) == ConvAlgo::Gemm);
    CHECK(chooseConvAlgo(shape(fwd, 64, 64, 56, 7, 1, 3), request) == ConvAlgo::Gemm);
    CHECK(chooseConvAlgo(shape(ConvPassKind::GradWeight, 64, 64, 56, 3, 1, 1), request) == ConvAlgo::Gemm);
    CHECK(chooseConvAlgo(shape(gi, 64, 64, 56, 3, 1, 3), request) == ConvAlgo::Gemm);
  }
  CHECK(chooseConvAlgo(shape(fwd, 64, 64, 56, 3, 1, 1), ConvAlgoRequest::Gemm) == ConvAlgo::Gemm);
  CHECK(chooseConvAlgo(shape(fwd, 3, 4, 9, 3, 1, 0), ConvAlgoRequest::Winograd4) == ConvAlgo::Winograd4);
  // F(4x4) refused past its error bound, asked for or not.
  const int64_t over = kWinograd4MaxChannels + 1;
  CHECK(chooseConvAlgo(shape(fwd, over, 64, 56, 3, 1, 1), ConvAlgoRequest::Winograd4) == ConvAlgo::Winograd2);
  CHECK(chooseConvAlgo(shape(fwd, over, 64, 56, 3, 1, 1), ConvAlgoRequest::Auto) == ConvAlgo::Winograd2);
  CHECK(chooseConvAlgo(shape(gi, 64, over, 56, 3, 1, 1), ConvAlgoRequest::Winograd4) == ConvAlgo::Winograd2);
  CHECK(chooseConvAlgo(shape(fwd, kWinograd4MaxChannels, 64, 56, 3, 1, 1), ConvAlgoRequest::Winograd4) ==
        ConvAlgo::Winograd4);

  CHECK(parseConvAlgoRequest("--conv-algo", "winograd2").value() == ConvAlgoRequest::Winograd2);
  auto bad = parseConvAlgoRequest("--conv-algo", "fft");
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("--conv-algo 'fft'") && Catch::Contains("winograd4"));
}
