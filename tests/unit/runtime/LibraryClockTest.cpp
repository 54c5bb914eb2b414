// ExecContext::libraryClock: a profiled step's fused attention reports the time
// of the library GEMM calls it makes on its tiles (bench_runtime counts it as
// library time, as the batch_matmuls it replaces are), within its own time;
// kernels that call no library inside report none.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

std::vector<runtime::KernelTime> profiledStep(const ir::Graph& g, bool fuse) {
  partition::Plan plan;
  std::vector<ir::NodeId> all;
  for (size_t n = 0; n < g.nodes.size(); ++n) all.push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "all", ir::NodeRole::Forward, all, "", 0, {}}};
  plan.schedule = {0};
  runtime::ExecutorOptions o;
  o.threads = 1;
  o.fuse = fuse;
  o.profileKernels = true;
  auto ex = runtime::Executor::create(g, plan, o);
  if (!ex) FAIL(ex.error().message());
  std::mt19937 rng(5);
  for (ValueId v : g.inputs) REQUIRE(ex->setInput(v, randomTensor(g.value(v).type.shape, rng)).ok());
  REQUIRE(ex->step(true).ok());
  return ex->kernelProfile();
}

}  // namespace

TEST_CASE("a profiled fused attention reports its library GEMM time, other kernels none", "[attention][profile]") {
  ir::Graph g;
  const ValueId q = g.addInput("q", {ir::DType::F32, {4, 128, 32}});
  const ValueId k = g.addInput("k", {ir::DType::F32, {4, 128, 32}});
  const ValueId v = g.addInput("v", {ir::DType::F32, {4, 128, 32}});
  const ValueId s =
      addInferredNode(g, OpKind::BatchMatMul, "scores", {q, k}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}})[0];
  const ValueId p = addInferredNode(g, OpKind::Softmax, "probs", {s})[0];
  const ValueId o =
      addInferredNode(g, OpKind::BatchMatMul, "context", {p, v}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0];
  g.outputs = {o};

  bool sawAttention = false;
  for (const runtime::KernelTime& t : profiledStep(g, true)) {
    INFO(t.label);
    if (t.label == "attention forward (fused)") {
      sawAttention = true;
      CHECK(t.libraryUs > 0);
      CHECK(t.libraryUs <= t.totalUs);
    } else {
      CHECK(t.libraryUs == 0);
    }
  }
  CHECK(sawAttention);
  for (const runtime::KernelTime& t : profiledStep(g, false)) {
    INFO(t.label);
    CHECK(t.libraryUs == 0);  // the batch_matmuls are library kernels themselves
  }
}
