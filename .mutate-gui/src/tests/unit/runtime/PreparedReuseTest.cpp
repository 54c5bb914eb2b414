// Prepared objects reused after their inputs change in place. Winograd keeps
// its transformed weights "while the weights are unchanged" (Winograd.h): a
// prepared kernel run again after one weight element changed (the first, the
// last, one in a span past the 512 channels transformed at once), after the
// image or the bias changed, must give the direct convolution of the new
// values. The executor prepares its kernels and arena once: a weight fed as a
// graph input and changed between steps, and a new image, give the reference
// results of the new values every step.
#include <catch2/catch.hpp>

#include <cstring>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Executor.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

ir::Attributes conv3x3(int64_t pad) {
  return {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{pad, pad}}};
}

double relError(const ir::Tensor& got, const ir::Tensor& want) {
  double err = 0, scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    err = std::max(err, std::abs(double(got.data<float>()[i]) - want.data<float>()[i]));
    scale = std::max(scale, std::abs(double(want.data<float>()[i])));
  }
  return err / std::max(scale, 1e-30);
}

// conv2d (+ bias_add) over inputs x, w (and b), one prepared kernel run many times.
struct PreparedConv {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;  // shallow: the kernel reads these very buffers
  ir::ValueId out = ir::kNoValue;
  KernelPtr kernel;
  ir::Tensor conv, result;

  PreparedConv(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs, const ir::Tensor* bias) {
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
    const ir::Node& node = graph.nodes[0];
    std::vector<const ir::Tensor*> in;
    for (ir::ValueId v : node.inputs) in.push_back(&feeds.at(v));
    conv = ir::Tensor(graph.value(node.outputs[0]).type);
    result = ir::Tensor(graph.value(out).type);
    ir::Tensor* outs[] = {&conv};
    auto k = prepareKernel(node, in, outs);
    REQUIRE(k.ok());
    kernel = std::move(*k);
    if (bias) REQUIRE(kernel->takeBiasEpilogue(feeds.at(graph.nodes[1].inputs[1]), result));
  }

  ir::Tensor reference() const {
    auto ref = referenceEvaluate(graph, feeds);
    REQUIRE(ref.ok());
    return ref->at(out);
  }
  ir::Tensor run(ExecContext& ctx) {
    REQUIRE(kernel->run(ctx).ok());
    const ir::Tensor& r = graph.nodes.size() > 1 ? result : conv;
    ir::Tensor copy(r.type());
    std::memcpy(copy.bytes(), r.bytes(), r.byteSize());
    return copy;
  }
  float* input(size_t i) { return feeds.at(graph.nodes[0].inputs[i]).data<float>(); }
};

double tolerance(ConvAlgoRequest algo) { return algo == ConvAlgoRequest::Winograd4 ? 1e-5 : 1e-6; }

}  // namespace

TEST_CASE("winograd re-transforms its weights after any one of them changes in place", "[kernels][conv][winograd][reuse]") {
  struct Case {
    ir::Shape x;
    int64_t out, pad;
  };
  // The second has 530 input channels: two spans of the weight transform.
  for (const Case& c : {Case{{1, 3, 6, 7}, 4, 1}, Case{{1, 530, 4, 4}, 3, 1}, Case{{2, 5, 5, 5}, 2, 0}}) {
    for (ConvAlgoRequest algo : {ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4}) {
      INFO("x " << (ir::TensorType{ir::DType::F32, c.x}.toString()) << " " << convAlgoRequestName(algo));
      std::mt19937 rng(21);
      const ir::Tensor x = randomTensor(c.x, rng), w = randomTensor({c.out, c.x[1], 3, 3}, rng);
      PreparedConv conv(OpKind::Conv2d, {x, w}, conv3x3(c.pad), nullptr);
      support::ThreadPool pool(2);
      ExecContext ctx(pool);
      ctx.setConvAlgo(algo);
      const ir::Tensor first = conv.run(ctx);
      CHECK(relError(first, conv.reference()) < tolerance(algo));
      const int64_t n = w.numElements();
      // The last weight, the first, one in the second half, then all scaled: each run sees them.
      for (int64_t at : {n - 1, int64_t{0}, n / 2 + 1}) {
        conv.input(1)[at] += 2.5f;
        const ir::Tensor again = conv.run(ctx);
        CHECK(relError(again, conv.reference()) < tolerance(algo));
      }
      for (int64_t i = 0; i < n; ++i) conv.input(1)[i] *= -0.5f;
      CHECK(relError(conv.run(ctx), conv.reference()) < tolerance(algo));
      // Unchanged weights, a new image: the kept transform and the new image.
      conv.input(0)[x.numElements() - 1] = 7.0f;
      conv.input(0)[0] = -3.0f;
      CHECK(relError(conv.run(ctx), conv.reference()) < tolerance(algo));
    }
  }
}

TEST_CASE("winograd's input gradient re-transforms its flipped weights after they change", "[kernels][conv][winograd][reuse]") {
  std::mt19937 rng(22);
  const ir::Shape x{1, 4, 6, 6};
  const ir::Tensor dy = randomTensor({1, 5, 6, 6}, rng), w = randomTensor({5, 4, 3, 3}, rng);
  ir::Attributes attrs = conv3x3(1);
  attrs["input_shape"] = x;
  PreparedConv conv(OpKind::Conv2dGradInput, {dy, w}, attrs, nullptr);
  support::ThreadPool pool(1);
  ExecContext ctx(pool);
  ctx.setConvAlgo(ConvAlgoRequest::Winograd4);
  CHECK(relError(conv.run(ctx), conv.reference()) < 1e-5);
  conv.input(1)[w.numElements() - 1] -= 4.0f;  // the last tap of the last kernel: the first after the flip
  CHECK(relError(conv.run(ctx), conv.reference()) < 1e-5);
  conv.input(1)[0] += 4.0f;
  CHECK(relError(conv.run(ctx), conv.reference()) < 1e-5);
}

TEST_CASE("winograd's bias epilogue reads the bias of each run", "[kernels][conv][winograd][reuse]") {
  std::mt19937 rng(23);
  const ir::Tensor x = randomTensor({1, 6, 8, 8}, rng), w = randomTensor({7, 6, 3, 3}, rng), b = randomTensor({7}, rng);
  for (ConvAlgoRequest algo : {ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4}) {
    PreparedConv conv(OpKind::Conv2d, {x, w}, conv3x3(1), &b);
    support::ThreadPool pool(1);
    ExecContext ctx(pool);
    ctx.setConvAlgo(algo);
    CHECK(relError(conv.run(ctx), conv.reference()) < tolerance(algo));
    conv.feeds.at(conv.graph.nodes[1].inputs[1]).data<float>()[6] += 10.0f;
    CHECK(relError(conv.run(ctx), conv.reference()) < tolerance(algo));
  }
}

TEST_CASE("the executor's prepared kernels see a weight input and an image changed between steps", "[executor][winograd][reuse]") {
  std::mt19937 rng(24);
  ir::Graph g;
  const ir::ValueId x = g.addInput("x", {ir::DType::F32, {2, 8, 9, 9}});
  const ir::ValueId w = g.addInput("w", {ir::DType::F32, {8, 8, 3, 3}});
  const ir::ValueId fc = g.addInput("fc", {ir::DType::F32, {8 * 9 * 9, 5}});
  const ir::ValueId c = addOp(g, OpKind::Conv2d, "conv", {x, w}, conv3x3(1));
  const ir::ValueId r = addOp(g, OpKind::Relu, "relu", {c});
  const ir::ValueId flat = addOp(g, OpKind::Reshape, "flat", {r}, {{"shape", std::vector<int64_t>{2, 8 * 9 * 9}}});
  const ir::ValueId y = addOp(g, OpKind::MatMul, "fc", {flat, fc});
  g.outputs = {y, c};
  partition::Plan plan;
  std::vector<ir::NodeId> all;
  for (size_t n = 0; n < g.nodes.size(); ++n) all.push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "all", ir::NodeRole::Forward, all, "", 0, {}}};
  plan.schedule = {0};
  for (ConvAlgoRequest algo : {ConvAlgoRequest::Winograd4, ConvAlgoRequest::Gemm}) {
    ExecutorOptions options;
    options.threads = 2;
    options.convAlgo = algo;
    auto ex = Executor::create(g, plan, options);
    REQUIRE(ex.ok());
    std::map<ir::ValueId, ir::Tensor> feeds{{x, randomTensor({2, 8, 9, 9}, rng)},
                                            {w, randomTensor({8, 8, 3, 3}, rng)},
                                            {fc, randomTensor({8 * 9 * 9, 5}, rng)}};
    for (int stepNo = 0; stepNo < 4; ++stepNo) {
      INFO("step " << stepNo << " " << convAlgoRequestName(algo));
      if (stepNo == 1) feeds[w].data<float>()[8 * 8 * 9 - 1] += 3.0f;  // one weight, the last
      if (stepNo == 2) feeds[x] = randomTensor({2, 8, 9, 9}, rng);
      if (stepNo == 3) feeds[w] = randomTensor({8, 8, 3, 3}, rng);
      for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
      REQUIRE(ex->step(false).ok());
      auto ref = referenceEvaluate(g, feeds);
      REQUIRE(ref.ok());
      CHECK(relError(ex->tensor(c), ref->at(c)) < 1e-5);
      CHECK(relError(ex->tensor(y), ref->at(y)) < 1e-5);
    }
  }
}
