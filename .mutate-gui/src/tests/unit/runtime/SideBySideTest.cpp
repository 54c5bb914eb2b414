// Independent GEMMs of a section side by side (SectionFusion.h, SideBySide.h):
// which pairs form, and their results against the op-by-op run on any pool.
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

struct Run {
  std::vector<ir::Tensor> outputs;
  runtime::FusionStats stats;
  std::vector<runtime::KernelTime> profile;
};

Run runStep(const ir::Graph& g, const std::map<ValueId, ir::Tensor>& feeds, bool fuse, int threads, int width = 0) {
  partition::Plan plan;
  std::vector<ir::NodeId> all;
  for (size_t n = 0; n < g.nodes.size(); ++n) all.push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "all", ir::NodeRole::Forward, all, "", 0, {}}};
  plan.schedule = {0};
  runtime::ExecutorOptions o;
  o.threads = threads;
  o.fuse = fuse;
  o.splitWidth = width;
  o.profileKernels = true;
  auto ex = runtime::Executor::create(g, plan, o);
  if (!ex) FAIL(ex.error().message());
  for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
  REQUIRE(ex->step(true).ok());
  Run r;
  for (ValueId v : g.outputs) r.outputs.push_back(ex->tensor(v).clone());
  r.stats = ex->fusionStats();
  r.profile = ex->kernelProfile();
  return r;
}

bool sameBits(const Run& a, const Run& b) {
  for (size_t i = 0; i < a.outputs.size(); ++i)
    if (std::memcmp(a.outputs[i].bytes(), b.outputs[i].bytes(), a.outputs[i].byteSize()) != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("independent GEMMs of a section run side by side, within rounding of op by op on any pool", "[fusion]") {
  std::mt19937 rng(31);
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {256, 128}});
  const ValueId dy = g.addInput("dy", {ir::DType::F32, {256, 64}});
  const ValueId w = g.addParam("w", randomTensor({256, 64}, rng, -0.1f, 0.1f));
  const ValueId w2 = g.addParam("w2", randomTensor({256, 128}, rng, -0.1f, 0.1f));
  const ValueId b = g.addParam("b", randomTensor({128}, rng));
  // Two GEMMs of a linear layer's backward (dX = dY W^T, dW = X^T dY): neither
  // reads the other, 4.2M and 2.1M multiply-adds: a pair. (256 x 256 x 64 with
  // B^T is a shape whose pieces oneDNN's AVX2 sgemm rounds unlike the whole.)
  const ValueId dx = addOp(g, OpKind::MatMul, "dx", {dy, w}, {{"trans_b", int64_t{1}}});
  const ValueId dw = addOp(g, OpKind::MatMul, "dw", {x, dy}, {{"trans_a", int64_t{1}}});
  // A GEMM with its bias epilogue, then one that reads it: in turn.
  const ValueId h = addOp(g, OpKind::BiasAdd, "h", {addOp(g, OpKind::MatMul, "hm", {dx, w2}), b});
  const ValueId back = addOp(g, OpKind::MatMul, "back", {h, w2}, {{"trans_b", int64_t{1}}});
  // Two small independent GEMMs (8K multiply-adds each, under 1M): not worth a thread each.
  const ValueId p = g.addInput("p", {ir::DType::F32, {16, 32}});
  const ValueId s1 = addOp(g, OpKind::MatMul, "s1", {p, p}, {{"trans_b", int64_t{1}}});
  const ValueId s2 = addOp(g, OpKind::MatMul, "s2", {p, p}, {{"trans_a", int64_t{1}}});
  g.outputs = {dx, dw, back, s1, s2};
  const std::map<ValueId, ir::Tensor> feeds{
      {x, randomTensor({256, 128}, rng)}, {dy, randomTensor({256, 64}, rng)}, {p, randomTensor({16, 32}, rng)}};

  const Run opByOp = runStep(g, feeds, false, 2), fused = runStep(g, feeds, true, 2);
  CHECK(fused.stats.sideBySide == 1);
  CHECK(fused.stats.biasEpilogues == 1);
  CHECK(opByOp.stats.sideBySide == 0);
  bool labelled = false;
  for (const auto& k : fused.profile) labelled |= k.label == "matmuls side by side (fused)" && k.calls == 1;
  CHECK(labelled);

  auto ref = runtime::referenceEvaluate(g, feeds);
  REQUIRE(ref.ok());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    CHECK(maxRelDiff(fused.outputs[i], opByOp.outputs[i]) < 1e-5);
    CHECK(maxRelDiff(fused.outputs[i], ref->at(g.outputs[i])) < 1e-5);
  }
  // One thread: the pair runs in turn, the same calls as op by op.
  CHECK(sameBits(runStep(g, feeds, true, 1), runStep(g, feeds, false, 1)));
  // A fixed width (--deterministic) keeps each GEMM's pieces: the op-by-op bits on any pool.
  const Run fixed = runStep(g, feeds, false, 1, 4);
  for (int threads : {1, 2, 3}) CHECK(sameBits(runStep(g, feeds, true, threads, 4), fixed));
}
