// Every op's kernel against the reference interpreter, plus hand-checked cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "RuntimeTestUtil.h"
#include "ir/ShapeInference.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"
#include "runtime/kernels/KernelFamilies.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;

namespace {

struct OpRun {
  Status status;
  std::vector<ir::Tensor> outputs;
};

// A one-node graph whose inputs are the given tensors.
ir::Graph singleOpGraph(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs,
                        std::map<ir::ValueId, ir::Tensor>& feeds) {
  ir::Graph g;
  std::vector<ir::ValueId> inIds;
  for (size_t i = 0; i < ins.size(); ++i) {
    inIds.push_back(g.addInput("in" + std::to_string(i), ins[i].type()));
    feeds[inIds.back()] = ins[i];
  }
  ir::Node probe;
  probe.op = op;
  probe.name = "probe";
  probe.inputs = inIds;
  probe.attrs = attrs;
  auto types = ir::inferOutputTypes(g, probe);
  REQUIRE(types.ok());
  std::vector<ir::ValueId> outIds;
  for (size_t i = 0; i < types->size(); ++i)
    outIds.push_back(g.addValue("out" + std::to_string(i), (*types)[i], ir::ValueKind::Intermediate));
  g.addNode(op, "the_node", inIds, outIds, attrs);
  return g;
}

OpRun runOp(const ir::Graph& g, const std::vector<ir::Tensor>& ins) {
  OpRun r;
  std::vector<const ir::Tensor*> inPtrs;
  for (const auto& t : ins) inPtrs.push_back(&t);
  for (ir::ValueId v : g.nodes[0].outputs) r.outputs.emplace_back(g.value(v).type);
  std::vector<ir::Tensor*> outPtrs;
  for (auto& t : r.outputs) outPtrs.push_back(&t);
  r.status = runtime::runKernel(g.nodes[0], inPtrs, outPtrs);
  return r;
}

// tolerance: the largest relative difference allowed (0: bit for bit).
void checkAgainstReference(OpKind op, std::vector<ir::Tensor> ins, ir::Attributes attrs = {}, double tolerance = 1e-4) {
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::Graph g = singleOpGraph(op, ins, attrs, feeds);
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  OpRun got = runOp(g, ins);
  REQUIRE(got.status.ok());
  for (size_t i = 0; i < got.outputs.size(); ++i) {
    INFO(ir::opName(op) << " output " << i << " " << got.outputs[i].type().toString());
    CHECK(maxRelDiff(got.outputs[i], ref->at(g.nodes[0].outputs[i])) <= tolerance);
  }
}

ir::Attributes convAttrs(int64_t s, int64_t p) {
  return {{"stride", std::vector<int64_t>{s, s}}, {"pad", std::vector<int64_t>{p, p}}};
}

}  // namespace

TEST_CASE("elementwise kernels match the reference", "[kernels]") {
  std::mt19937 rng(1);
  for (ir::Shape s : {ir::Shape{7}, ir::Shape{3, 5}, ir::Shape{2, 3, 5, 7}}) {
    checkAgainstReference(OpKind::Add, {randomTensor(s, rng), randomTensor(s, rng)});
    checkAgainstReference(OpKind::Sub, {randomTensor(s, rng), randomTensor(s, rng)});
    checkAgainstReference(OpKind::Mul, {randomTensor(s, rng), randomTensor(s, rng)});
    checkAgainstReference(OpKind::Scale, {randomTensor(s, rng)}, {{"alpha", 2.5}});
    checkAgainstReference(OpKind::Relu, {randomTensor(s, rng)});
    checkAgainstReference(OpKind::ReluGrad, {randomTensor(s, rng), randomTensor(s, rng)});
  }
  checkAgainstReference(OpKind::BiasAdd, {randomTensor({3, 5}, rng), randomTensor({5}, rng)});
  checkAgainstReference(OpKind::BiasAdd, {randomTensor({2, 3, 5, 7}, rng), randomTensor({3}, rng)});
}

TEST_CASE("relu zeroes negatives and passes positives", "[kernels]") {
  std::vector<ir::Tensor> ins{f32Tensor({4}, {-2.0f, 0.0f, 3.0f, -0.5f})};
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::Graph g = singleOpGraph(OpKind::Relu, ins, {}, feeds);
  OpRun r = runOp(g, ins);
  REQUIRE(r.status.ok());
  CHECK(std::vector<float>(r.outputs[0].span<float>().begin(), r.outputs[0].span<float>().end()) ==
        std::vector<float>{0.0f, 0.0f, 3.0f, 0.0f});
}

TEST_CASE("matmul matches the reference for every transpose combination", "[kernels]") {
  std::mt19937 rng(2);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (auto [m, k, n] : {std::tuple{1, 1, 1}, std::tuple{5, 7, 3}, std::tuple{33, 17, 9}}) {
        ir::Shape a = ta ? ir::Shape{k, m} : ir::Shape{m, k}, b = tb ? ir::Shape{n, k} : ir::Shape{k, n};
        checkAgainstReference(OpKind::MatMul, {randomTensor(a, rng), randomTensor(b, rng)},
                              {{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}});
      }
}

TEST_CASE("conv2d and its gradients match the reference", "[kernels][conv]") {
  std::mt19937 rng(3);
  struct Case { ir::Shape x, w; int64_t stride, pad; };
  for (const Case& c : {Case{{1, 1, 5, 5}, {1, 1, 3, 3}, 1, 0}, Case{{2, 3, 7, 6}, {4, 3, 3, 3}, 2, 1},
                        Case{{2, 2, 9, 9}, {3, 2, 2, 3}, 3, 2}, Case{{1, 2, 4, 4}, {2, 2, 1, 1}, 1, 0}}) {
    ir::Tensor x = randomTensor(c.x, rng), w = randomTensor(c.w, rng);
    checkAgainstReference(OpKind::Conv2d, {x, w}, convAttrs(c.stride, c.pad));
    int64_t oh = (c.x[2] + 2 * c.pad - c.w[2]) / c.stride + 1, ow = (c.x[3] + 2 * c.pad - c.w[3]) / c.stride + 1;
    ir::Tensor dy = randomTensor({c.x[0], c.w[0], oh, ow}, rng);
    ir::Attributes gi = convAttrs(c.stride, c.pad), gw = convAttrs(c.stride, c.pad);
    gi["input_shape"] = c.x;
    gw["weight_shape"] = c.w;
    checkAgainstReference(OpKind::Conv2dGradInput, {dy, w}, gi);
    checkAgainstReference(OpKind::Conv2dGradWeight, {dy, x}, gw);

    // True gradients: <conv(x,w), dy> = <x, dx(dy,w)> = <w, dw(dy,x)>.
    std::map<ir::ValueId, ir::Tensor> feeds;
    OpRun y = runOp(singleOpGraph(OpKind::Conv2d, {x, w}, convAttrs(c.stride, c.pad), feeds), {x, w});
    OpRun dx = runOp(singleOpGraph(OpKind::Conv2dGradInput, {dy, w}, gi, feeds), {dy, w});
    OpRun dw = runOp(singleOpGraph(OpKind::Conv2dGradWeight, {dy, x}, gw, feeds), {dy, x});
    auto dot = [](const ir::Tensor& a, const ir::Tensor& b) {
      double s = 0;
      for (int64_t i = 0; i < a.numElements(); ++i) s += double(a.data<float>()[i]) * b.data<float>()[i];
      return s;
    };
    double lhs = dot(y.outputs[0], dy);
    CHECK(dot(x, dx.outputs[0]) == Approx(lhs).epsilon(1e-4).margin(1e-4));
    CHECK(dot(w, dw.outputs[0]) == Approx(lhs).epsilon(1e-4).margin(1e-4));
  }
}

TEST_CASE("conv2d matches a hand-computed example", "[kernels][conv]") {
  ir::Tensor x = f32Tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ir::Tensor w = f32Tensor({1, 1, 2, 2}, {1, 0, 0, 1});  // y = x[i][j] + x[i+1][j+1]
  std::map<ir::ValueId, ir::Tensor> feeds;
  OpRun plain = runOp(singleOpGraph(OpKind::Conv2d, {x, w}, convAttrs(1, 0), feeds), {x, w});
  REQUIRE(plain.status.ok());
  auto s = plain.outputs[0].span<float>();
  CHECK(std::vector<float>(s.begin(), s.end()) == std::vector<float>{6, 8, 12, 14});
  OpRun strided = runOp(singleOpGraph(OpKind::Conv2d, {x, w}, convAttrs(2, 1), feeds), {x, w});
  REQUIRE(strided.status.ok());
  auto t = strided.outputs[0].span<float>();
  CHECK(std::vector<float>(t.begin(), t.end()) == std::vector<float>{1, 3, 7, 14});
}

TEST_CASE("maxpool and its gradient match the reference", "[kernels][pool]") {
  std::mt19937 rng(4);
  struct Case { ir::Shape x; int64_t k, s; };
  for (const Case& c : {Case{{1, 1, 4, 4}, 2, 2}, Case{{2, 3, 7, 5}, 3, 2}, Case{{1, 2, 5, 5}, 2, 1}}) {
    ir::Attributes attrs{{"kernel", std::vector<int64_t>{c.k, c.k}}, {"stride", std::vector<int64_t>{c.s, c.s}}};
    ir::Tensor x = randomTensor(c.x, rng);
    checkAgainstReference(OpKind::MaxPool2d, {x}, attrs);
    ir::Tensor dy = randomTensor({c.x[0], c.x[1], (c.x[2] - c.k) / c.s + 1, (c.x[3] - c.k) / c.s + 1}, rng);
    checkAgainstReference(OpKind::MaxPool2dGrad, {dy, x}, attrs);
  }
}

// Values from {-1, 0, 1, 2}: many windows hold ties, where the gradient must pick the first maximum.
ir::Tensor tiedTensor(const ir::Shape& shape, std::mt19937& rng) {
  ir::Tensor t = randomTensor(shape, rng);
  for (float& v : t.span<float>()) v = static_cast<float>(static_cast<int>(rng() % 4) - 1);
  return t;
}

TEST_CASE("padded maxpool and its gradient equal the reference bit for bit", "[kernels][pool]") {
  std::mt19937 rng(41);
  struct Case { ir::Shape x; std::vector<int64_t> k, s, p; };
  for (const Case& c : {Case{{2, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1}},  // ResNet's stem pool
                        Case{{1, 2, 7, 6}, {3, 3}, {1, 1}, {1, 1}}, Case{{1, 2, 6, 7}, {3, 2}, {1, 2}, {2, 1}},
                        Case{{1, 1, 1, 1}, {3, 3}, {2, 2}, {1, 1}},       // a plane narrower than the window
                        Case{{1, 1, 2, 300}, {2, 3}, {1, 1}, {1, 2}},     // a row longer than the gradient's segment
                        Case{{1, 2, 10, 11}, {4, 4}, {3, 3}, {2, 2}},     // stride 3: three column phases
                        Case{{1, 1, 3, 301}, {3, 3}, {2, 2}, {1, 1}}}) {  // odd width: phases of 151 and 150
    INFO("x " << c.x[0] << "x" << c.x[1] << "x" << c.x[2] << "x" << c.x[3] << " kernel " << c.k[0] << "x" << c.k[1]);
    ir::Attributes attrs{{"kernel", c.k}, {"stride", c.s}, {"pad", c.p}};
    const int64_t oh = (c.x[2] + 2 * c.p[0] - c.k[0]) / c.s[0] + 1, ow = (c.x[3] + 2 * c.p[1] - c.k[1]) / c.s[1] + 1;
    for (int tied = 0; tied < 2; ++tied) {
      ir::Tensor x = tied ? tiedTensor(c.x, rng) : randomTensor(c.x, rng);
      ir::Tensor dy = randomTensor({c.x[0], c.x[1], oh, ow}, rng);
      checkAgainstReference(OpKind::MaxPool2d, {x}, attrs, 0.0);
      checkAgainstReference(OpKind::MaxPool2dGrad, {dy, x}, attrs, 0.0);
    }
  }
}

TEST_CASE("maxpool over planes narrower than its window reads each plane only", "[kernels][pool]") {
  ir::Attributes attrs{{"kernel", std::vector<int64_t>{3, 3}}, {"stride", std::vector<int64_t>{2, 2}},
                       {"pad", std::vector<int64_t>{1, 1}}};
  ir::Tensor x = f32Tensor({1, 3, 1, 1}, {1, 5, -2});  // three 1x1 planes, one window each
  std::map<ir::ValueId, ir::Tensor> feeds;
  OpRun r = runOp(singleOpGraph(OpKind::MaxPool2d, {x}, attrs, feeds), {x});
  REQUIRE(r.status.ok());
  auto y = r.outputs[0].span<float>();
  CHECK(std::vector<float>(y.begin(), y.end()) == std::vector<float>{1, 5, -2});
}

TEST_CASE("maxpool keeps a NaN in a window's first cell and ignores a later one, as the reference does", "[kernels][pool]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ir::Attributes attrs{{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}},
                       {"pad", std::vector<int64_t>{1, 1}}};
  // Windows (pad 1): {x00}, {x01, x02}, {x10, x20}, {x11, x12, x21, x22}.
  ir::Tensor x = f32Tensor({1, 1, 3, 3}, {1, nan, 5, 2, 3, 4, 6, nan, 7});
  std::map<ir::ValueId, ir::Tensor> feeds;
  OpRun r = runOp(singleOpGraph(OpKind::MaxPool2d, {x}, attrs, feeds), {x});
  REQUIRE(r.status.ok());
  auto y = r.outputs[0].span<float>();
  CHECK(y[0] == 1.0f);
  CHECK(std::isnan(y[1]));  // the first cell inside the plane is the NaN
  CHECK(y[2] == 6.0f);
  CHECK(y[3] == 7.0f);      // the NaN comes after 3: never greater, never taken
}

TEST_CASE("maxpool gradient goes to the first maximum on ties", "[kernels][pool]") {
  ir::Attributes attrs{{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}};
  ir::Tensor x = f32Tensor({1, 1, 2, 2}, {5, 5, 5, 5});
  ir::Tensor dy = f32Tensor({1, 1, 1, 1}, {3});
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::Graph g = singleOpGraph(OpKind::MaxPool2dGrad, {dy, x}, attrs, feeds);
  OpRun r = runOp(g, {dy, x});
  REQUIRE(r.status.ok());
  auto s = r.outputs[0].span<float>();
  CHECK(std::vector<float>(s.begin(), s.end()) == std::vector<float>{3, 0, 0, 0});
  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  CHECK(maxRelDiff(r.outputs[0], ref->at(g.nodes[0].outputs[0])) == 0.0);
}

TEST_CASE("maxpool gradient over windows that tile the plane equals the reference bit for bit", "[kernels][pool]") {
  // Stride = kernel, unpadded: 2x2 (its branch-free row) and 3x3; odd sizes
  // leave a last row and column in no window (their gradient is 0); ties,
  // NaNs in first and later cells, and -0 gradients (the reference's 0 + -0 is +0).
  std::mt19937 rng(42);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    ir::Shape x;
    int64_t k;
  };
  for (const Case& c : {Case{{2, 3, 9, 7}, 2}, Case{{1, 2, 8, 40}, 2}, Case{{1, 2, 10, 9}, 3}}) {
    INFO("x " << c.x[2] << "x" << c.x[3] << " kernel " << c.k);
    ir::Attributes attrs{{"kernel", std::vector<int64_t>{c.k, c.k}}, {"stride", std::vector<int64_t>{c.k, c.k}}};
    ir::Tensor x = tiedTensor(c.x, rng);
    auto xs = x.span<float>();
    xs[0] = nan;                                // the first cell of the first window
    xs[static_cast<size_t>(c.x[3] + 1)] = nan;  // a later cell of the same window (its second row)
    xs[3] = nan;                                // 2x2: the second window's top right; 3x3: a first cell
    const int64_t oh = c.x[2] / c.k, ow = c.x[3] / c.k;
    ir::Tensor dy = randomTensor({c.x[0], c.x[1], oh, ow}, rng);
    for (size_t i = 0; i < dy.span<float>().size(); i += 5) dy.span<float>()[i] = -0.0f;
    std::map<ir::ValueId, ir::Tensor> feeds;
    ir::Graph g = singleOpGraph(OpKind::MaxPool2dGrad, {dy, x}, attrs, feeds);
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE(ref.ok());
    OpRun got = runOp(g, {dy, x});
    REQUIRE(got.status.ok());
    const ir::Tensor& want = ref->at(g.nodes[0].outputs[0]);
    CHECK(std::memcmp(got.outputs[0].bytes(), want.bytes(), want.byteSize()) == 0);
  }
}

TEST_CASE("reshape and reduce_sum match the reference", "[kernels]") {
  std::mt19937 rng(5);
  checkAgainstReference(OpKind::Reshape, {randomTensor({2, 3, 4}, rng)}, {{"shape", std::vector<int64_t>{4, -1}}});
  ir::Tensor x = randomTensor({3, 4, 5, 2}, rng);
  for (auto axes : {std::vector<int64_t>{0}, {1}, {3}, {0, 2, 3}, {1, 2}, {0, 1, 2, 3}})
    for (int64_t keep : {0, 1}) checkAgainstReference(OpKind::ReduceSum, {x}, {{"axes", axes}, {"keepdims", keep}});
  checkAgainstReference(OpKind::ReduceSum, {randomTensor({7, 3}, rng)}, {{"axes", std::vector<int64_t>{0}}});
}

TEST_CASE("softmax and cross-entropy match the reference", "[kernels][loss]") {
  std::mt19937 rng(6);
  for (auto [n, c] : {std::pair{1, 1}, std::pair{4, 10}, std::pair{7, 3}}) {
    ir::Tensor logits = randomTensor({n, c}, rng, -20.0f, 20.0f), labels = labelTensor(n, c, rng);
    checkAgainstReference(OpKind::Softmax, {logits});
    checkAgainstReference(OpKind::SoftmaxCrossEntropy, {logits, labels});
    checkAgainstReference(OpKind::SoftmaxCrossEntropyGrad, {logits, labels});
  }
  checkAgainstReference(OpKind::Softmax, {randomTensor({2, 3, 5}, rng)});
}

TEST_CASE("cross-entropy of uniform logits is log C, even for huge logits", "[kernels][loss]") {
  for (float v : {0.0f, 1000.0f}) {
    ir::Tensor logits = f32Tensor({2, 10}, std::vector<float>(20, v));
    ir::Tensor labels(ir::TensorType{ir::DType::I64, {2}});
    labels.data<int64_t>()[1] = 9;
    std::map<ir::ValueId, ir::Tensor> feeds;
    OpRun r = runOp(singleOpGraph(OpKind::SoftmaxCrossEntropy, {logits, labels}, {}, feeds), {logits, labels});
    REQUIRE(r.status.ok());
    CHECK(*r.outputs[0].data<float>() == Approx(std::log(10.0)).epsilon(1e-5));
  }
}

TEST_CASE("a label out of range is an error naming the node", "[kernels][loss]") {
  ir::Tensor logits = f32Tensor({2, 3}, {0, 0, 0, 0, 0, 0});
  ir::Tensor labels(ir::TensorType{ir::DType::I64, {2}});
  labels.data<int64_t>()[1] = 3;
  for (OpKind op : {OpKind::SoftmaxCrossEntropy, OpKind::SoftmaxCrossEntropyGrad}) {
    std::map<ir::ValueId, ir::Tensor> feeds;
    ir::Graph g = singleOpGraph(op, {logits, labels}, {}, feeds);
    OpRun r = runOp(g, {logits, labels});
    REQUIRE_FALSE(r.status.ok());
    CHECK_THAT(r.status.error().message(), Catch::Contains("the_node") && Catch::Contains("label 3"));
    auto ref = runtime::referenceEvaluate(g, feeds);
    REQUIRE_FALSE(ref.ok());
    CHECK_THAT(ref.error().message(), Catch::Contains("the_node"));
  }
}

TEST_CASE("optimizer updates match the reference and their formulas", "[kernels][optim]") {
  std::mt19937 rng(7);
  ir::Tensor p = randomTensor({5, 3}, rng), g = randomTensor({5, 3}, rng), v = randomTensor({5, 3}, rng);
  ir::Tensor lr = ir::Tensor::scalarF32(0.1f);
  checkAgainstReference(OpKind::SgdUpdate, {p, g, lr}, {{"weight_decay", 0.01}});
  checkAgainstReference(OpKind::MomentumUpdate, {p, g, v, lr}, {{"momentum", 0.9}, {"weight_decay", 0.01}});
  checkAgainstReference(OpKind::SgdUpdate, {randomTensor({13}, rng), randomTensor({13}, rng), lr});

  std::map<ir::ValueId, ir::Tensor> feeds;
  OpRun m = runOp(singleOpGraph(OpKind::MomentumUpdate, {p, g, v, lr}, {{"momentum", 0.9}, {"weight_decay", 0.01}},
                                feeds),
                  {p, g, v, lr});
  REQUIRE(m.status.ok());
  float vn = 0.9f * v.data<float>()[4] + (g.data<float>()[4] + 0.01f * p.data<float>()[4]);
  CHECK(m.outputs[1].data<float>()[4] == Approx(vn));
  CHECK(m.outputs[0].data<float>()[4] == Approx(p.data<float>()[4] - 0.1f * vn));
}

TEST_CASE("scratch buffers start on a 64-byte line and hold what was asked", "[kernels]") {
  // malloc aligns to 16 bytes (a large vector's data sits 16 past a page):
  // AVX-512 rows would straddle cache lines depending on the heap.
  support::ThreadPool pool(1);
  runtime::ExecContext ctx(pool);
  for (size_t n : {size_t{1}, size_t{15}, size_t{16}, size_t{1000}, size_t{1} << 20}) {
    float* p = ctx.scratch(n);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    p[0] = 1.0f, p[n - 1] = 2.0f;  // the whole range is the buffer's (ASan checks)
  }
  std::vector<float> buffer;
  for (int64_t n : {1, 17, 40000}) {
    float* p = runtime::lineAligned(buffer, n);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    CHECK(p + n <= buffer.data() + buffer.size());
  }
}
