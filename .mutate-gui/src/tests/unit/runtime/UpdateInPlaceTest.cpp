// Optimizer updates in place (Executor::Impl::updateInPlace): a momentum
// update writes the new param and velocity over the old when nothing later in
// the step reads the old value, and keeps separate buffers (copied after the
// step) when something does; the results are the same either way.
#include <catch2/catch.hpp>

#include "RuntimeTestUtil.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;
using ir::OpKind;
using ir::ValueId;

namespace {

constexpr float kLr = 0.5f, kMomentum = 0.9f;

struct Step {
  int inPlace = 0;
  std::vector<float> param, velocity, before, after;  // before/after: x @ W read before and after the update
  std::vector<float> expectedParam, expectedVelocity;  // v' = m v + g, w' = w - lr v', by hand
};

std::vector<float> valuesOf(const ir::Tensor& t) {
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

// x @ W, then momentum_update(W, G, V), then (readAfter) x @ W again; one
// section per node, in that order.
Step runOneStep(bool readAfter) {
  std::mt19937 rng(9);
  const ir::Tensor w0 = randomTensor({4, 8}, rng), v0 = randomTensor({4, 8}, rng);
  const ir::Tensor x0 = randomTensor({2, 4}, rng), g0 = randomTensor({4, 8}, rng);
  ir::Graph g;
  const ValueId w = g.addParam("w", w0.clone());
  const ValueId v = g.addParam("v", v0.clone());
  const ValueId lr = g.addConst("lr", f32Tensor({}, {kLr}));
  const ValueId x = g.addInput("x", {ir::DType::F32, {2, 4}});
  const ValueId grad = g.addInput("grad", {ir::DType::F32, {4, 8}});
  const ValueId before = addOp(g, OpKind::MatMul, "before", {x, w});
  const auto fresh = addInferredNode(g, OpKind::MomentumUpdate, "update", {w, grad, v, lr},
                                     {{"momentum", double{kMomentum}}, {"weight_decay", 0.0}}, ir::NodeRole::Optimizer);
  g.updates = {{w, fresh[0]}, {v, fresh[1]}};
  g.outputs = {before};
  ValueId after = ir::kNoValue;
  if (readAfter) {
    after = addOp(g, OpKind::MatMul, "after", {x, w});
    g.outputs.push_back(after);
  }
  partition::Plan plan;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    plan.sections.push_back({static_cast<int>(n), "s" + std::to_string(n), g.nodes[n].role,
                             {static_cast<ir::NodeId>(n)}, "", 0, {}});
    plan.schedule.push_back(static_cast<int>(n));
  }
  runtime::ExecutorOptions options;
  options.threads = 1;
  auto ex = runtime::Executor::create(g, plan, options);
  if (!ex) FAIL(ex.error().message());
  REQUIRE(ex->setInput(x, x0).ok());
  REQUIRE(ex->setInput(grad, g0).ok());
  REQUIRE(ex->step(false).ok());
  Step out{ex->updatesInPlace(), valuesOf(ex->tensor(w)), valuesOf(ex->tensor(v)), valuesOf(ex->tensor(before)), {},
           valuesOf(w0), valuesOf(v0)};
  if (readAfter) out.after = valuesOf(ex->tensor(after));
  const std::vector<float> gs = valuesOf(g0);
  for (size_t i = 0; i < gs.size(); ++i) {
    out.expectedVelocity[i] = kMomentum * out.expectedVelocity[i] + (gs[i] + 0.0f * out.expectedParam[i]);
    out.expectedParam[i] = out.expectedParam[i] - kLr * out.expectedVelocity[i];
  }
  return out;
}

}  // namespace

TEST_CASE("a momentum update nothing later reads the old param of runs in place", "[runtime][optimizer]") {
  const Step s = runOneStep(false);
  CHECK(s.inPlace == 2);  // the param and its velocity
  CHECK(s.param == s.expectedParam);
  CHECK(s.velocity == s.expectedVelocity);
}

TEST_CASE("a param read after its update keeps a separate new buffer, and the results do not change", "[runtime][optimizer]") {
  const Step inPlace = runOneStep(false), kept = runOneStep(true);
  CHECK(kept.inPlace == 1);  // only the velocity, which nothing else reads
  CHECK(kept.after == kept.before);  // the later read still sees the old param during the step
  CHECK(kept.param == inPlace.param);
  CHECK(kept.velocity == inPlace.velocity);
  CHECK(kept.before == inPlace.before);
  CHECK(kept.param == kept.expectedParam);
}
