// The transformer and layout kernels against the reference interpreter, plus
// hand-checked values and the errors a user would see.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "ir/ShapeInference.h"
#include "runtime/Kernels.h"
#include "runtime/kernels/FastMath.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

struct Probe {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  std::vector<ir::Tensor> ins;
};

Probe makeProbe(OpKind op, std::vector<ir::Tensor> ins, const ir::Attributes& attrs) {
  Probe p;
  std::vector<ir::ValueId> ids;
  for (size_t i = 0; i < ins.size(); ++i) {
    ids.push_back(p.graph.addInput("in" + std::to_string(i), ins[i].type()));
    p.feeds[ids.back()] = ins[i];
  }
  ir::Node probe;
  probe.op = op;
  probe.name = "probe";
  probe.inputs = ids;
  probe.attrs = attrs;
  auto types = ir::inferOutputTypes(p.graph, probe);
  INFO((types.ok() ? std::string() : types.error().message()));
  REQUIRE(types.ok());
  std::vector<ir::ValueId> outs;
  for (size_t i = 0; i < types->size(); ++i)
    outs.push_back(p.graph.addValue("out" + std::to_string(i), (*types)[i], ir::ValueKind::Intermediate));
  p.graph.addNode(op, "the_node", ids, outs, attrs);
  p.ins = std::move(ins);
  return p;
}

Status runKernelOn(const Probe& p, std::vector<ir::Tensor>& outs) {
  std::vector<const ir::Tensor*> inPtrs;
  for (const auto& t : p.ins) inPtrs.push_back(&t);
  for (ir::ValueId v : p.graph.nodes[0].outputs) outs.emplace_back(p.graph.value(v).type);
  std::vector<ir::Tensor*> outPtrs;
  for (auto& t : outs) outPtrs.push_back(&t);
  return runtime::runKernel(p.graph.nodes[0], inPtrs, outPtrs);
}

std::vector<ir::Tensor> checkAgainstReference(OpKind op, std::vector<ir::Tensor> ins, const ir::Attributes& attrs = {}) {
  Probe p = makeProbe(op, std::move(ins), attrs);
  auto ref = runtime::referenceEvaluate(p.graph, p.feeds);
  INFO((ref.ok() ? std::string() : ref.error().message()));
  REQUIRE(ref.ok());
  std::vector<ir::Tensor> outs;
  Status st = runKernelOn(p, outs);
  INFO((st.ok() ? std::string() : st.error().message()));
  REQUIRE(st.ok());
  for (size_t i = 0; i < outs.size(); ++i) {
    INFO(ir::opName(op) << " output " << i << " " << outs[i].type().toString());
    const ir::Tensor& expected = ref->at(p.graph.nodes[0].outputs[i]);
    if (outs[i].dtype() == ir::DType::F32) {
      CHECK(maxRelDiff(outs[i], expected) < 1e-4);
    } else {
      CHECK(std::equal(outs[i].bytes(), outs[i].bytes() + outs[i].byteSize(), expected.bytes()));
    }
  }
  return outs;
}

ir::Tensor ids(ir::Shape shape, std::vector<int64_t> values) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, std::move(shape)});
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t;
}

ir::Attributes bmmAttrs(bool ta, bool tb) { return {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}}; }

}  // namespace

TEST_CASE("transpose matches the reference for f32 and i64", "[kernels][transformer]") {
  std::mt19937 rng(3);
  checkAgainstReference(OpKind::Transpose, {randomTensor({3, 5}, rng)}, {{"perm", std::vector<int64_t>{1, 0}}});
  checkAgainstReference(OpKind::Transpose, {randomTensor({2, 3, 4, 5}, rng)},
                        {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  checkAgainstReference(OpKind::Transpose, {randomTensor({2, 3, 3, 2, 4}, rng)},
                        {{"perm", std::vector<int64_t>{2, 0, 3, 1, 4}}});
  auto out = checkAgainstReference(OpKind::Transpose, {ids({2, 3}, {0, 1, 2, 3, 4, 5})},
                                   {{"perm", std::vector<int64_t>{1, 0}}});
  CHECK(out[0].shape() == ir::Shape{3, 2});
  CHECK(std::vector<int64_t>(out[0].span<int64_t>().begin(), out[0].span<int64_t>().end()) ==
        std::vector<int64_t>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("slice and slice_grad match the reference", "[kernels][transformer]") {
  std::mt19937 rng(4);
  for (int64_t axis : {0, 1, 2}) {
    ir::Attributes a{{"axis", axis}, {"start", int64_t{1}}, {"end", int64_t{3}}};
    checkAgainstReference(OpKind::Slice, {randomTensor({3, 4, 5}, rng)}, a);
    ir::Shape small{3, 4, 5};
    small[static_cast<size_t>(axis)] = 2;
    checkAgainstReference(OpKind::SliceGrad, {randomTensor(small, rng)},
                          {{"axis", axis}, {"start", int64_t{1}}, {"input_shape", ir::Shape{3, 4, 5}}});
  }
}

TEST_CASE("batch_matmul matches the reference for every transpose combination", "[kernels][transformer]") {
  std::mt19937 rng(5);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      ir::Shape as = ta ? ir::Shape{2, 3, 4, 5} : ir::Shape{2, 3, 5, 4};
      ir::Shape bs = tb ? ir::Shape{2, 3, 6, 4} : ir::Shape{2, 3, 4, 6};
      auto out = checkAgainstReference(OpKind::BatchMatMul, {randomTensor(as, rng), randomTensor(bs, rng)},
                                       bmmAttrs(ta, tb));
      CHECK(out[0].shape() == ir::Shape{2, 3, 5, 6});
    }
}

TEST_CASE("softmax_grad, gelu and gelu_grad match the reference", "[kernels][transformer]") {
  std::mt19937 rng(6);
  checkAgainstReference(OpKind::SoftmaxGrad, {randomTensor({4, 7}, rng), randomTensor({4, 7}, rng, 0.0f, 1.0f)});
  checkAgainstReference(OpKind::Gelu, {randomTensor({3, 50}, rng, -4.0f, 4.0f)});
  checkAgainstReference(OpKind::GeluGrad, {randomTensor({3, 50}, rng), randomTensor({3, 50}, rng, -4.0f, 4.0f)});
  // Hand-checked: gelu(1) = 0.8411920 in the tanh approximation, gelu(0) = 0.
  auto out = checkAgainstReference(OpKind::Gelu, {f32Tensor({2}, {1.0f, 0.0f})});
  CHECK(out[0].data<float>()[0] == Approx(0.841192).epsilon(1e-5));
  CHECK(out[0].data<float>()[1] == 0.0f);
}

// The GELU loops are built for AVX-512, AVX2 and the baseline and the loader
// picks one (FastMath.h): whichever runs must give the bits of the formula
// evaluated one element at a time here (this file builds for the baseline).
TEST_CASE("gelu and gelu_grad give the same bits on every instruction set", "[kernels][transformer]") {
  using runtime::kernels::fastTanh;
  constexpr float c = 0.7978845608028654f, a = 0.044715f;
  std::mt19937 rng(11);
  const int64_t n = 1000;  // not a multiple of any vector width: the tail runs too
  ir::Tensor x = randomTensor({n}, rng, -6.0f, 6.0f), dy = randomTensor({n}, rng);
  std::vector<ir::Tensor> y, dx;
  REQUIRE(runKernelOn(makeProbe(OpKind::Gelu, {x}, {}), y).ok());
  REQUIRE(runKernelOn(makeProbe(OpKind::GeluGrad, {dy, x}, {}), dx).ok());
  int differ = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x.data<float>()[i];
    const volatile float t = fastTanh(c * (v + a * v * v * v));  // volatile: no contraction across the call
    const float dt = (1.0f - t * t) * c * (1.0f + 3.0f * a * v * v);
    const float gelu = 0.5f * v * (1.0f + t);
    const float grad = dy.data<float>()[i] * (0.5f * (1.0f + t) + 0.5f * v * dt);
    differ += gelu != y[0].data<float>()[i];
    differ += grad != dx[0].data<float>()[i];
  }
  CHECK(differ == 0);
}

TEST_CASE("causal_mask fills positions above the diagonal", "[kernels][transformer]") {
  std::mt19937 rng(7);
  checkAgainstReference(OpKind::CausalMask, {randomTensor({2, 3, 4, 4}, rng)}, {{"fill", -1e9}});
  auto out = checkAgainstReference(OpKind::CausalMask, {f32Tensor({2, 2}, {1, 2, 3, 4})}, {{"fill", 0.0}});
  CHECK(std::vector<float>(out[0].span<float>().begin(), out[0].span<float>().end()) ==
        std::vector<float>{1, 0, 3, 4});
}

TEST_CASE("layer_norm and layer_norm_grad match the reference", "[kernels][transformer]") {
  std::mt19937 rng(8);
  ir::Attributes eps{{"epsilon", 1e-5}};
  auto y = checkAgainstReference(OpKind::LayerNorm,
                                 {randomTensor({2, 3, 16}, rng, -2, 3), f32Tensor({16}, std::vector<float>(16, 1.0f)),
                                  f32Tensor({16}, std::vector<float>(16, 0.0f))},
                                 eps);
  // With gamma 1, beta 0 every row has mean 0 and variance ~1.
  double mean = 0, var = 0;
  for (int i = 0; i < 16; ++i) mean += y[0].data<float>()[i] / 16.0;
  for (int i = 0; i < 16; ++i) var += (y[0].data<float>()[i] - mean) * (y[0].data<float>()[i] - mean) / 16.0;
  CHECK(mean == Approx(0.0).margin(1e-5));
  CHECK(var == Approx(1.0).epsilon(1e-3));
  checkAgainstReference(OpKind::LayerNorm, {randomTensor({5, 8}, rng), randomTensor({8}, rng), randomTensor({8}, rng)},
                        eps);
  auto g = checkAgainstReference(OpKind::LayerNormGrad,
                                 {randomTensor({5, 8}, rng), randomTensor({5, 8}, rng), randomTensor({8}, rng)}, eps);
  REQUIRE(g.size() == 3);
  CHECK(g[1].shape() == ir::Shape{8});
}

TEST_CASE("embedding and embedding_grad match the reference, bad ids name the node", "[kernels][transformer]") {
  std::mt19937 rng(9);
  ir::Tensor table = randomTensor({6, 4}, rng);
  auto out = checkAgainstReference(OpKind::Embedding, {table, ids({2, 3}, {0, 5, 2, 2, 1, 0})});
  CHECK(out[0].shape() == ir::Shape{2, 3, 4});
  CHECK(out[0].data<float>()[4] == table.data<float>()[5 * 4]);
  // Repeated ids accumulate.
  checkAgainstReference(OpKind::EmbeddingGrad, {randomTensor({2, 3, 4}, rng), ids({2, 3}, {0, 5, 2, 2, 1, 0})},
                        {{"num_embeddings", int64_t{6}}});

  Probe p = makeProbe(OpKind::Embedding, {table, ids({2}, {1, 6})}, {});
  std::vector<ir::Tensor> outs;
  Status st = runKernelOn(p, outs);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("the_node") && Catch::Contains("id 6"));
  auto ref = runtime::referenceEvaluate(p.graph, p.feeds);
  REQUIRE_FALSE(ref.ok());
  CHECK_THAT(ref.error().message(), Catch::Contains("the_node"));
}

TEST_CASE("shape inference rejects malformed transformer ops", "[kernels][transformer]") {
  ir::Graph g;
  ir::ValueId a = g.addInput("a", {ir::DType::F32, {2, 3, 4}});
  ir::ValueId b = g.addInput("b", {ir::DType::F32, {3, 4, 5}});
  auto infer = [&](OpKind op, std::vector<ir::ValueId> in, ir::Attributes attrs) {
    ir::Node n;
    n.op = op;
    n.name = "bad";
    n.inputs = std::move(in);
    n.attrs = std::move(attrs);
    return ir::inferOutputTypes(g, n);
  };
  CHECK_FALSE(infer(OpKind::BatchMatMul, {a, b}, {}).ok());           // leading dims differ
  CHECK_FALSE(infer(OpKind::Transpose, {a}, {{"perm", std::vector<int64_t>{0, 0, 1}}}).ok());
  CHECK_FALSE(infer(OpKind::CausalMask, {a}, {}).ok());               // not square
  CHECK_FALSE(infer(OpKind::Slice, {a}, {{"axis", int64_t{1}}, {"start", int64_t{2}}, {"end", int64_t{4}}}).ok());
  CHECK_FALSE(infer(OpKind::Embedding, {a, a}, {}).ok());
}

TEST_CASE("a masked softmax gives exact zeros where the mask is, no denormals", "[kernels][transformer]") {
  // -1e9 is how exporters mask attention scores; -100 is past exp's -87 floor too.
  auto out =
      checkAgainstReference(OpKind::Softmax, {f32Tensor({1, 8}, {0.5f, 1, -1e9f, -1e9f, -100, -1e9f, 2, -1e9f})});
  const float* p = out[0].data<float>();
  for (int i : {2, 3, 4, 5, 7}) CHECK(p[i] == 0.0f);
  for (int i = 0; i < 8; ++i) CHECK(std::fpclassify(p[i]) != FP_SUBNORMAL);
  CHECK(p[0] + p[1] + p[6] == Approx(1.0f));
}

TEST_CASE("global_avg_pool, batch_norm and padded maxpool2d match the reference", "[kernels][vision]") {
  std::mt19937 rng(10);
  checkAgainstReference(OpKind::GlobalAvgPool, {randomTensor({2, 3, 4, 5}, rng)});
  checkAgainstReference(OpKind::GlobalAvgPoolGrad, {randomTensor({2, 3}, rng)},
                        {{"input_shape", ir::Shape{2, 3, 4, 5}}});
  ir::Attributes eps{{"epsilon", 1e-5}};
  checkAgainstReference(OpKind::BatchNorm, {randomTensor({4, 3, 5, 5}, rng, -1, 3), randomTensor({3}, rng),
                                            randomTensor({3}, rng)}, eps);
  auto g = checkAgainstReference(OpKind::BatchNormGrad, {randomTensor({4, 3, 5, 5}, rng), randomTensor({4, 3, 5, 5}, rng),
                                                         randomTensor({3}, rng)}, eps);
  CHECK(g.size() == 3);
  ir::Attributes pool{{"kernel", std::vector<int64_t>{3, 3}}, {"stride", std::vector<int64_t>{2, 2}},
                      {"pad", std::vector<int64_t>{1, 1}}};
  // 7x7, kernel 3, stride 2, pad 1: windows start at -1, 1, 3, 5, so the first
  // row/column of windows reads the top/left padding and the last (5..7) the
  // bottom/right padding.
  auto y = checkAgainstReference(OpKind::MaxPool2d, {randomTensor({2, 2, 7, 7}, rng)}, pool);
  CHECK(y[0].shape() == ir::Shape{2, 2, 4, 4});
  // All-negative input (5x5: windows -1..1, 1..3, 3..5): padding (-inf) never wins, on any side.
  auto neg = checkAgainstReference(OpKind::MaxPool2d, {randomTensor({1, 1, 5, 5}, rng, -3.0f, -1.0f)}, pool);
  CHECK(neg[0].shape() == ir::Shape{1, 1, 3, 3});
  for (float v : neg[0].span<float>()) {
    CHECK(v >= -3.0f);  // an input value, not the padding's -inf
    CHECK(v < -0.9f);   // nor a zero padding
  }
  checkAgainstReference(OpKind::MaxPool2dGrad, {randomTensor({2, 2, 4, 4}, rng), randomTensor({2, 2, 7, 7}, rng)}, pool);
}

TEST_CASE("adam_update matches the reference, with bias correction from step", "[kernels][optimizer]") {
  std::mt19937 rng(11);
  ir::Attributes a{{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"weight_decay", 0.01}};
  for (float step : {1.0f, 5.0f}) {
    auto out = checkAgainstReference(OpKind::AdamUpdate,
                                     {randomTensor({4, 6}, rng), randomTensor({4, 6}, rng), randomTensor({4, 6}, rng),
                                      randomTensor({4, 6}, rng, 0.0f, 1.0f), ir::Tensor::scalarF32(0.01f),
                                      ir::Tensor::scalarF32(step)},
                                     a);
    CHECK(out.size() == 3);
  }
  // First step from zero state moves each weight by ~lr * sign(grad).
  auto out = checkAgainstReference(OpKind::AdamUpdate,
                                   {f32Tensor({2}, {1.0f, 1.0f}), f32Tensor({2}, {0.5f, -2.0f}), f32Tensor({2}, {0, 0}),
                                    f32Tensor({2}, {0, 0}), ir::Tensor::scalarF32(0.1f), ir::Tensor::scalarF32(1.0f)},
                                   {});
  CHECK(out[0].data<float>()[0] == Approx(0.9f).epsilon(1e-4));
  CHECK(out[0].data<float>()[1] == Approx(1.1f).epsilon(1e-4));
}
