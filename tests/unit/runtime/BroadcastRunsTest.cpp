// The flat-run paths of general binary and where (kernels/RowBroadcast.h):
// every broadcast an exported model makes (same shape, a scalar, a trailing
// vector, a leading column, [N,C,H,W] x [N,C,1,1], on either side), empty
// and size-1 axes, bit for bit against the reference interpreter, on pools of
// 1, 2 and 3 threads whose chunks end in the middle of a row.
#include <catch2/catch.hpp>
#include <cstring>

#include "RuntimeTestUtil.h"
#include "ir/ShapeInference.h"
#include "runtime/Kernels.h"
#include "runtime/Reference.h"
#include "runtime/kernels/RowBroadcast.h"
#include "support/ThreadPool.h"

using namespace dfc;
using namespace dfc::runtime;
using namespace dfc::runtime::test;
using ir::DType;
using ir::OpKind;

namespace {

struct OneNode {
  ir::Graph graph;
  std::map<ir::ValueId, ir::Tensor> feeds;
  ir::ValueId out = ir::kNoValue;
};

OneNode oneNode(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs) {
  OneNode m;
  std::vector<ir::ValueId> ids;
  for (size_t i = 0; i < ins.size(); ++i) {
    ids.push_back(m.graph.addInput("in" + std::to_string(i), ins[i].type()));
    m.feeds[ids.back()] = ins[i];
  }
  ir::Node probe;
  probe.op = op;
  probe.inputs = ids;
  probe.attrs = attrs;
  auto types = ir::inferOutputTypes(m.graph, probe);
  REQUIRE(types.ok());
  m.out = m.graph.addValue("out", (*types)[0], ir::ValueKind::Intermediate);
  m.graph.addNode(op, "node", ids, {m.out}, attrs);
  return m;
}

// The kernel's bytes equal the reference's on pools of 1, 2 and 3 threads.
void checkBitExact(OpKind op, const std::vector<ir::Tensor>& ins, const ir::Attributes& attrs = {}) {
  OneNode m = oneNode(op, ins, attrs);
  auto ref = referenceEvaluate(m.graph, m.feeds);
  REQUIRE(ref.ok());
  const ir::Tensor& want = ref->at(m.out);
  std::vector<const ir::Tensor*> in;
  for (const auto& t : ins) in.push_back(&t);
  for (int threads : {1, 2, 3}) {
    std::string shapes;
    for (const auto& t : ins) shapes += " " + t.type().toString();
    INFO(std::string(ir::opName(op)) + shapes + " on " + std::to_string(threads) + " threads");
    ir::Tensor got(want.type());
    std::memset(got.bytes(), 0x7f, got.byteSize());
    ir::Tensor* outs[] = {&got};
    auto kernel = prepareKernel(m.graph.nodes[0], in, outs);
    REQUIRE(kernel.ok());
    support::ThreadPool pool(threads);
    ExecContext ctx(pool);
    REQUIRE((*kernel)->run(ctx).ok());
    CHECK(std::memcmp(got.bytes(), want.bytes(), want.byteSize()) == 0);
  }
}

ir::Tensor ints(ir::Shape shape, std::mt19937& rng, DType dt) {
  ir::Tensor t(ir::TensorType{dt, std::move(shape)});
  std::uniform_int_distribution<int> dist(-9, 9);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const int v = dist(rng);
    if (dt == DType::I64)
      t.data<int64_t>()[i] = v;
    else if (dt == DType::I32)
      t.data<int32_t>()[i] = v;
    else
      t.data<bool>()[i] = (v & 1) != 0;
  }
  return t;
}

using Pair = std::pair<ir::Shape, ir::Shape>;

// Each broadcast on both sides; the large ones split over 3 chunks mid-row.
const std::vector<Pair> kPatterns = {{{2, 3, 4, 5}, {2, 3, 4, 5}},   // same shape
                                     {{2, 3, 4, 5}, {}},             // a scalar
                                     {{2, 3, 4, 9}, {9}},            // a trailing vector
                                     {{2, 3, 9, 1}, {2, 3, 9, 11}},  // a leading column
                                     {{2, 3, 4, 5}, {1, 3, 1, 1}},   // per channel
                                     {{2, 3, 4, 5}, {2, 3, 1, 1}},   // squeeze-excite
                                     {{2, 1, 4, 9}, {3, 1, 9}},      // both broadcast
                                     {{1, 1, 1}, {1}},               // size-1 axes only
                                     {{0, 3}, {3}},                  // empty
                                     {{5, 7, 6007}, {5, 7, 6007}},   // the chunks
                                     {{5, 7, 6007}, {6007}},         //
                                     {{5, 7, 1}, {5, 7, 6007}},      //
                                     {{5, 7, 6007}, {1}},            //
                                     {{2, 3, 5, 7, 1003}, {1, 3, 1, 7, 1}}};

}  // namespace

TEST_CASE("general binary runs equal the reference bit for bit on every broadcast and pool size",
          "[kernels][general][broadcast]") {
  std::mt19937 rng(41);
  for (const auto& [sa, sb] : kPatterns) {
    for (const auto& [x, z] : {Pair{sa, sb}, Pair{sb, sa}}) {
      for (const char* fn : {"add", "sub", "mul", "div", "max", "min"})
        checkBitExact(OpKind::Binary, {randomTensor(x, rng, -3, 3), randomTensor(z, rng, 0.2f, 3)},
                      {{"fn", std::string(fn)}});
      checkBitExact(OpKind::Binary, {ints(x, rng, DType::I64), ints(z, rng, DType::I64)}, {{"fn", std::string("sub")}});
      checkBitExact(OpKind::Binary, {ints(x, rng, DType::I32), ints(z, rng, DType::I32)},
                    {{"fn", std::string("less")}});
      checkBitExact(OpKind::Binary, {ints(x, rng, DType::Bool), ints(z, rng, DType::Bool)},
                    {{"fn", std::string("xor")}});
    }
  }
}

TEST_CASE("where runs equal the reference bit for bit on every broadcast and pool size",
          "[kernels][general][broadcast]") {
  std::mt19937 rng(42);
  // GPT-2's causal mask: a [T,T] condition, a scalar fill, the [B,H,T,T] scores.
  checkBitExact(OpKind::Where,
                {ints({67, 67}, rng, DType::Bool), randomTensor({}, rng), randomTensor({3, 12, 67, 67}, rng)});
  for (const auto& [sa, sb] : kPatterns) {
    for (const auto& [c, x, z] : {std::array{sa, sb, sa}, std::array{sb, sa, sb}, std::array{sa, sa, sb}}) {
      checkBitExact(OpKind::Where, {ints(c, rng, DType::Bool), randomTensor(x, rng), randomTensor(z, rng)});
      checkBitExact(OpKind::Where, {ints(c, rng, DType::Bool), ints(x, rng, DType::I64), ints(z, rng, DType::I64)});
      checkBitExact(OpKind::Where, {ints(c, rng, DType::Bool), ints(x, rng, DType::Bool), ints(z, rng, DType::Bool)});
    }
  }
}

TEST_CASE("row broadcast merges axes into rows each input reads flat or as one element",
          "[kernels][general][broadcast]") {
  using kernels::RowBroadcast;
  // [2,3,4,5] x [1,3,1,1]: rows of 20 (H*W), the channel's one element each.
  auto perChannel = RowBroadcast<2>::ofShapes({2, 3, 4, 5}, {ir::Shape{2, 3, 4, 5}, ir::Shape{1, 3, 1, 1}});
  CHECK(perChannel.rowLength() == 20);
  CHECK(perChannel.innerStrides() == std::array<int64_t, 2>{1, 0});
  std::vector<std::array<int64_t, 4>> runs;  // (out index, a offset, b offset, count)
  perChannel.forEachRun(15, 65, [&](int64_t i, const std::array<int64_t, 2>& o, int64_t n) {
    runs.push_back({i, o[0], o[1], n});
  });
  // Rows 0..3 of 20 cut at 15 and 65; row r reads channel r % 3.
  const std::vector<std::array<int64_t, 4>> want = {{15, 15, 0, 5}, {20, 20, 1, 20}, {40, 40, 2, 20}, {60, 60, 0, 5}};
  CHECK(runs == want);
  // Same shapes merge into one row; a trailing vector leaves rows of its length.
  CHECK(RowBroadcast<2>::ofShapes({1, 4, 5, 6}, {ir::Shape{4, 5, 6}, ir::Shape{1, 4, 5, 6}}).rowLength() == 120);
  auto vec = RowBroadcast<2>::ofShapes({4, 5, 6}, {ir::Shape{4, 5, 6}, ir::Shape{6}});
  CHECK(vec.rowLength() == 6);
  CHECK(vec.innerStrides() == std::array<int64_t, 2>{1, 1});
  // A scalar output is one row of one element.
  auto scalar = RowBroadcast<2>::ofShapes({}, {ir::Shape{}, ir::Shape{}});
  CHECK(scalar.rowLength() == 1);
  CHECK(scalar.innerStrides() == std::array<int64_t, 2>{0, 0});
}
