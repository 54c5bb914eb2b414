// The executor on a small training graph split into sections, and the memory planner.
#include <catch2/catch.hpp>

#include <chrono>

#include "RuntimeTestUtil.h"
#include "ir/ShapeInference.h"
#include "runtime/Executor.h"
#include "runtime/MemoryPlanner.h"
#include "runtime/Reference.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

// Linear + relu + softmax cross-entropy with an SGD step on w.
struct TrainGraph {
  ir::Graph g;
  ValueId x, labels, lr, w, b, h, r, loss, dw, wNew;
  partition::Plan plan;

  TrainGraph() {
    std::mt19937 rng(11);
    x = g.addInput("x", {ir::DType::F32, {4, 6}});
    labels = g.addInput("labels", {ir::DType::I64, {4}});
    lr = g.addInput("lr", {ir::DType::F32, {}});
    w = g.addParam("w", randomTensor({6, 5}, rng));
    b = g.addParam("b", randomTensor({5}, rng));
    ValueId mm = addOp(g, OpKind::MatMul, "mm", {x, w});
    h = addOp(g, OpKind::BiasAdd, "h", {mm, b});
    r = addOp(g, OpKind::Relu, "r", {h});
    loss = addOp(g, OpKind::SoftmaxCrossEntropy, "loss", {r, labels});
    ValueId dl = addOp(g, OpKind::SoftmaxCrossEntropyGrad, "dl", {r, labels}, {}, ir::NodeRole::Backward);
    ValueId dh = addOp(g, OpKind::ReluGrad, "dh", {dl, h}, {}, ir::NodeRole::Backward);
    dw = addOp(g, OpKind::MatMul, "dw", {x, dh}, {{"trans_a", int64_t{1}}}, ir::NodeRole::Backward);
    wNew = addOp(g, OpKind::SgdUpdate, "w_new", {w, dw, lr}, {}, ir::NodeRole::Optimizer);
    g.outputs = {loss, r};
    g.updates = {{w, wNew}};
    // Section ids differ from their indices on purpose.
    plan.sections = {{10, "s_fwd", ir::NodeRole::Forward, {0, 1, 2, 3}, "", 0, {}},
                     {11, "s_bwd", ir::NodeRole::Backward, {4, 5, 6}, "", 1, {}},
                     {12, "s_opt", ir::NodeRole::Optimizer, {7}, "", 2, {}}};
    plan.schedule = {10, 11, 12};
  }

  std::map<ValueId, ir::Tensor> feeds() const {
    std::mt19937 rng(12);
    return {{x, randomTensor({4, 6}, rng)}, {labels, labelTensor(4, 5, rng)}, {lr, ir::Tensor::scalarF32(0.5f)}};
  }
};

runtime::Executor makeExecutor(const TrainGraph& t) {
  auto ex = runtime::Executor::create(t.g, t.plan);
  REQUIRE(ex.ok());
  for (auto& [id, tensor] : t.feeds()) REQUIRE(ex->setInput(id, tensor).ok());
  return std::move(ex).value();
}

}  // namespace

TEST_CASE("a training step equals the reference and applies the SGD update", "[executor]") {
  TrainGraph t;
  auto ref = runtime::referenceEvaluate(t.g, t.feeds());
  REQUIRE(ref.ok());
  runtime::Executor ex = makeExecutor(t);
  ir::Tensor wBefore = ex.tensor(t.w).clone();
  std::vector<int> called;
  REQUIRE(ex.step(false, [&](const runtime::SectionCall& c) { called.push_back(c.sectionId); }).ok());
  CHECK(called == std::vector<int>{10, 11, 12});
  CHECK(maxRelDiff(ex.tensor(t.loss), ref->at(t.loss)) < 1e-5);
  CHECK(maxRelDiff(ex.tensor(t.r), ref->at(t.r)) < 1e-5);
  // w' = w - lr * dw, with dw from the reference.
  const ir::Tensor& dw = ref->at(t.dw);
  ir::Tensor expected = wBefore.clone();
  for (int64_t i = 0; i < expected.numElements(); ++i) expected.data<float>()[i] -= 0.5f * dw.data<float>()[i];
  CHECK(maxRelDiff(ex.tensor(t.w), expected) < 1e-5);
  CHECK(maxRelDiff(ex.tensor(t.w), wBefore) > 1e-3);  // the step did move the weights
}

TEST_CASE("forwardOnly runs only forward sections and leaves params alone", "[executor]") {
  TrainGraph t;
  runtime::Executor ex = makeExecutor(t);
  ir::Tensor wBefore = ex.tensor(t.w).clone();
  std::vector<runtime::SectionCall> calls;
  const auto before = std::chrono::steady_clock::now();
  REQUIRE(ex.step(true, [&](const runtime::SectionCall& c) { calls.push_back(c); }).ok());
  const double stepUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - before).count();
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].sectionId == 10);
  // Measured around the call: it ran (a nonzero time) within the step, which started after `before`.
  CHECK(calls[0].durationUs > 0);
  CHECK(calls[0].durationUs <= stepUs);
  CHECK(calls[0].start >= before);
  // Crossing the boundary: x, w, b, labels in; h, r (read by backward) and loss out; mm stays inside.
  CHECK(calls[0].bytes == Approx(96 + 120 + 20 + 32 + 80 + 80 + 4));
  CHECK(maxRelDiff(ex.tensor(t.w), wBefore) == 0.0);
  auto ref = runtime::referenceEvaluate(t.g, t.feeds());
  REQUIRE(ref.ok());
  CHECK(maxRelDiff(ex.tensor(t.loss), ref->at(t.loss)) < 1e-5);
}

TEST_CASE("setInput rejects a tensor of the wrong type, naming the value", "[executor]") {
  TrainGraph t;
  runtime::Executor ex = makeExecutor(t);
  Status st = ex.setInput(t.x, ir::Tensor(ir::TensorType{ir::DType::F32, {4, 7}}));
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("'x'") && Catch::Contains("f32[4,6]") && Catch::Contains("f32[4,7]"));
  CHECK_FALSE(ex.setInput(t.labels, ir::Tensor(ir::TensorType{ir::DType::I32, {4}})).ok());
}

TEST_CASE("create rejects bad plans and missing initializers", "[executor]") {
  TrainGraph t;
  SECTION("a node in no section") {
    t.plan.sections[1].nodes = {4, 5};
    auto ex = runtime::Executor::create(t.g, t.plan);
    REQUIRE_FALSE(ex.ok());
    CHECK_THAT(ex.error().message(), Catch::Contains("'dw'"));
  }
  SECTION("a node in two sections") {
    t.plan.sections[2].nodes = {6, 7};
    REQUIRE_FALSE(runtime::Executor::create(t.g, t.plan).ok());
  }
  SECTION("a schedule naming an unknown section") {
    t.plan.schedule = {10, 11, 99};
    auto ex = runtime::Executor::create(t.g, t.plan);
    REQUIRE_FALSE(ex.ok());
    CHECK_THAT(ex.error().message(), Catch::Contains("99"));
  }
  SECTION("a param without an initializer") {
    t.g.initializers.erase(t.b);
    auto ex = runtime::Executor::create(t.g, t.plan);
    REQUIRE_FALSE(ex.ok());
    CHECK_THAT(ex.error().message(), Catch::Contains("'b'"));
  }
}

TEST_CASE("a long chain reuses arena space, and fused keeps its intermediates out of memory", "[executor][memory]") {
  ir::Graph g;
  ValueId v = g.addInput("x", {ir::DType::F32, {256}});
  ValueId in = v;
  for (int i = 0; i < 8; ++i) v = addOp(g, i % 2 ? OpKind::Relu : OpKind::Scale, "n" + std::to_string(i), {v},
                                        {{"alpha", -1.0}});
  g.outputs = {v};
  partition::Plan plan;
  plan.sections = {{0, "all", ir::NodeRole::Forward, {0, 1, 2, 3, 4, 5, 6, 7}, "", 0, {}}};
  plan.schedule = {0};
  std::mt19937 rng(3);
  ir::Tensor x = randomTensor({256}, rng);
  auto ref = runtime::referenceEvaluate(g, {{in, x}});
  REQUIRE(ref.ok());
  for (bool fuse : {false, true}) {
    INFO("fuse " << fuse);
    runtime::ExecutorOptions options;
    options.fuse = fuse;
    auto ex = runtime::Executor::create(g, plan, options);
    REQUIRE(ex.ok());
    if (fuse) {  // one chain of eight; its seven intermediates live in the tile buffer, only the output in the arena
      CHECK(ex->fusionStats().chains == 1);
      CHECK(ex->fusionStats().chainedNodes == 8);
      CHECK(ex->fusionStats().tileValues == 7);
      CHECK(ex->arenaBytes() == 1024);
    } else {
      CHECK(ex->fusionStats().chains == 0);
      CHECK(ex->arenaBytes() < 8 * 1024);  // far below the 8 KiB sum: only two buffers live at a time
      CHECK(ex->arenaBytes() >= 2 * 1024);
    }
    REQUIRE(ex->setInput(in, x).ok());
    REQUIRE(ex->step(true).ok());
    // Intermediates share the arena (or a tile); the result must still be exact.
    CHECK(maxRelDiff(ex->tensor(v), ref->at(v)) == 0.0);
  }
}

TEST_CASE("memory planner shares space only between disjoint lifetimes", "[memory]") {
  using runtime::MemoryPlanner;
  std::vector<MemoryPlanner::Buffer> disjoint{{1000, 0, 1}, {1000, 2, 3}};
  auto r = MemoryPlanner::plan(disjoint);
  CHECK(r.arenaBytes < 2000);
  CHECK(r.offsets[0] == r.offsets[1]);

  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<MemoryPlanner::Buffer> bufs;
    int count = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < count; ++i) {
      int first = static_cast<int>(rng() % 20);
      bufs.push_back({rng() % 5000, first, first + static_cast<int>(rng() % 6)});
    }
    auto plan = MemoryPlanner::plan(bufs);
    for (size_t i = 0; i < bufs.size(); ++i) {
      CHECK(plan.offsets[i] % MemoryPlanner::kAlignment == 0);
      CHECK(plan.offsets[i] + bufs[i].bytes <= plan.arenaBytes);
      for (size_t j = i + 1; j < bufs.size(); ++j) {
        bool liveTogether = bufs[i].first <= bufs[j].last && bufs[j].first <= bufs[i].last;
        bool shareBytes = plan.offsets[i] < plan.offsets[j] + std::max<size_t>(bufs[j].bytes, 1) &&
                          plan.offsets[j] < plan.offsets[i] + std::max<size_t>(bufs[i].bytes, 1);
        if (liveTogether && shareBytes) FAIL("buffers " << i << " and " << j << " overlap in trial " << trial);
      }
    }
  }
}
