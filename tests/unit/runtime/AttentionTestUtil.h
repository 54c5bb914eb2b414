#pragma once
// Shared by the fused-attention tests: a hand-built chain's two sections, and
// one step of it fused or op by op.
#include <catch2/catch.hpp>
#include <map>

#include "runtime/Executor.h"

namespace dfc::runtime::test {

// The first `forwardNodes` nodes as the forward section, the rest (if any) as the backward.
inline partition::Plan forwardBackwardPlan(const ir::Graph& g, size_t forwardNodes) {
  partition::Plan plan;
  std::vector<ir::NodeId> fw, bw;
  for (size_t n = 0; n < g.nodes.size(); ++n) (n < forwardNodes ? fw : bw).push_back(static_cast<ir::NodeId>(n));
  plan.sections = {{0, "forward", ir::NodeRole::Forward, fw, "", 0, {}}};
  plan.schedule = {0};
  if (!bw.empty()) {
    plan.sections.push_back({1, "backward", ir::NodeRole::Backward, bw, "", 0, {}});
    plan.schedule.push_back(1);
  }
  return plan;
}

struct AttentionRun {
  std::vector<ir::Tensor> outputs;
  runtime::FusionStats stats;
  size_t arenaBytes = 0;
};

// One step on 2 threads: the graph outputs, the fusion made and the arena's size.
inline AttentionRun runFusedOrNot(const ir::Graph& g, const partition::Plan& plan,
                                  const std::map<ir::ValueId, ir::Tensor>& feeds, bool fuse) {
  runtime::ExecutorOptions options;
  options.threads = 2;
  options.fuse = fuse;
  auto ex = runtime::Executor::create(g, plan, options);
  if (!ex) FAIL(ex.error().message());
  for (const auto& [id, t] : feeds) REQUIRE(ex->setInput(id, t).ok());
  REQUIRE(ex->step(false).ok());
  AttentionRun r;
  for (ir::ValueId v : g.outputs) r.outputs.push_back(ex->tensor(v).clone());
  r.stats = ex->fusionStats();
  r.arenaBytes = ex->arenaBytes();
  return r;
}

}  // namespace dfc::runtime::test
