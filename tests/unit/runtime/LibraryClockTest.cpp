// The profiler's library clock (support/LibraryClock.h): a profiled kernel
// reports, within its own time, the time inside library GEMM/convolution calls
// (oneDNN/OpenBLAS sgemm, oneDNN's conv primitive): the fused attention's tile
// GEMMs, a batch_matmul's or matmul's product, an im2col / Winograd / oneDNN
// conv's; kernels of our own loops only (the direct depthwise conv, an
// elementwise op) report none. bench_runtime's outside-library split rests on it.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/ConvAlgo.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

std::vector<runtime::KernelTime> profiledStep(const ir::Graph& g, bool fuse,
                                              runtime::ConvAlgoRequest convAlgo = runtime::ConvAlgoRequest::Auto) {
  partition::Plan plan;
  std::vector<ir::NodeId> all;
  for (size_t n = 0; n < g.nodes.size(); ++n) all.push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "all", ir::NodeRole::Forward, all, "", 0, {}}};
  plan.schedule = {0};
  runtime::ExecutorOptions o;
  o.threads = 1;
  o.fuse = fuse;
  o.profileKernels = true;
  o.convAlgo = convAlgo;
  auto ex = runtime::Executor::create(g, plan, o);
  if (!ex) FAIL(ex.error().message());
  std::mt19937 rng(5);
  for (ValueId v : g.inputs) REQUIRE(ex->setInput(v, randomTensor(g.value(v).type.shape, rng)).ok());
  REQUIRE(ex->step(true).ok());
  return ex->kernelProfile();
}

// The one kernel of `g` whose label starts with `prefix`, profiled (unfused).
runtime::KernelTime kernelOf(const ir::Graph& g, const std::string& prefix,
                             runtime::ConvAlgoRequest convAlgo = runtime::ConvAlgoRequest::Auto) {
  std::vector<runtime::KernelTime> found;
  for (const runtime::KernelTime& t : profiledStep(g, false, convAlgo))
    if (t.label.rfind(prefix, 0) == 0) found.push_back(t);
  REQUIRE(found.size() == 1);
  INFO(found[0].label << ": " << found[0].libraryUs << " of " << found[0].totalUs << " us");
  REQUIRE(found[0].totalUs > 0);
  return found[0];
}

// x [1, 8, 16, 16] through a 3x3 conv2d to 8 channels, pad 1, then relu.
ir::Graph convThenRelu() {
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {1, 8, 16, 16}});
  const ValueId w = g.addInput("w", {ir::DType::F32, {8, 8, 3, 3}});
  const ValueId y = addInferredNode(g, OpKind::Conv2d, "conv", {x, w},
                                    {{"stride", std::vector<int64_t>{1, 1}}, {"pad", std::vector<int64_t>{1, 1}}})[0];
  g.outputs = {addInferredNode(g, OpKind::Relu, "relu", {y})[0]};
  return g;
}

}  // namespace

TEST_CASE("GEMM, Winograd and oneDNN convs and a matmul report library time within their own", "[profile]") {
  using runtime::ConvAlgoRequest;
  const ir::Graph conv = convThenRelu();
  for (ConvAlgoRequest algo : {ConvAlgoRequest::Gemm, ConvAlgoRequest::Winograd2, ConvAlgoRequest::OneDnn}) {
    INFO(std::string(runtime::convAlgoRequestName(algo)));
    const runtime::KernelTime t = kernelOf(conv, "conv2d", algo);
    CHECK(t.libraryUs > 0);
    CHECK(t.libraryUs <= t.totalUs);
  }
  ir::Graph g;
  const ValueId a = g.addInput("a", {ir::DType::F32, {64, 64}});
  const ValueId b = g.addInput("b", {ir::DType::F32, {64, 64}});
  g.outputs = {addInferredNode(g, OpKind::MatMul, "mm", {a, b})[0]};
  const runtime::KernelTime t = kernelOf(g, "matmul");
  CHECK(t.libraryUs > 0);
  CHECK(t.libraryUs <= t.totalUs);
}

TEST_CASE("the direct depthwise conv and an elementwise op report no library time", "[profile]") {
  ir::Graph g;
  const ValueId x = g.addInput("x", {ir::DType::F32, {1, 8, 16, 16}});
  const ValueId w = g.addInput("w", {ir::DType::F32, {8, 1, 3, 3}});
  const ir::Attributes depthwise{{"strides", std::vector<int64_t>{1, 1}},
                                 {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                 {"dilations", std::vector<int64_t>{1, 1}},
                                 {"group", int64_t{8}}};
  const ValueId y = addInferredNode(g, OpKind::Conv, "dw", {x, w}, depthwise)[0];
  g.outputs = {addInferredNode(g, OpKind::Relu, "relu", {y})[0]};
  // Auto runs a one-channel-per-group conv on the depthwise kernel (runtime/ConvAlgo.h).
  CHECK(kernelOf(g, "conv").libraryUs == 0);
  CHECK(kernelOf(g, "relu").libraryUs == 0);
  CHECK(kernelOf(convThenRelu(), "relu", runtime::ConvAlgoRequest::OneDnn).libraryUs == 0);
}

TEST_CASE("a profiled attention reports its library GEMM time, fused or as batch_matmuls, the softmax none",
          "[attention][profile]") {
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
    if (t.label == "batch_matmul") {  // the products, one library GEMM per matrix
      CHECK(t.libraryUs > 0);
      CHECK(t.libraryUs <= t.totalUs);
    } else {
      CHECK(t.libraryUs == 0);  // the softmax
    }
  }
}
