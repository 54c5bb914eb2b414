#include "lowering/Lowerer.h"

#include <algorithm>
#include <unordered_map>

#include "arch/FanIn.h"
#include "lowering/FanInBound.h"

namespace dfc::lowering {

std::string_view kernelRoleName(KernelRole role) {
  switch (role) {
    case KernelRole::Gemm: return "gemm";
    case KernelRole::Stage: return "stage";
    case KernelRole::Weights: return "weights";
    case KernelRole::InBuffer: return "in_buffer";
    case KernelRole::OutBuffer: return "out_buffer";
    case KernelRole::Reduce: return "reduce";
    case KernelRole::Staging: return "staging";
  }
  return "?";
}

namespace {

// Wires every source to some sink and every sink to some source, round robin:
// buffers are interleaved across the PCUs that read them.
void fanInOut(KernelGraph& kg, const std::vector<int>& from, const std::vector<int>& to) {
  if (from.empty() || to.empty()) return;
  size_t n = std::max(from.size(), to.size());
  for (size_t t = 0; t < n; ++t) kg.connect(from[t % from.size()], to[t % to.size()]);
}

}  // namespace

KernelGraph lowerSection(const ir::Graph& g, const std::vector<ir::NodeId>& nodes, const arch::CostModel& cost,
                         int pcuCap, int maxFanIn, std::span<const partition::OperatorTiling> tiling) {
  auto passesOf = [&](ir::NodeId id) {
    for (const partition::OperatorTiling& t : tiling)
      if (t.node == id) return t.passes;
    return 1;
  };
  KernelGraph kg;
  const int stagesPerPcu = cost.arch().pcuStages;
  std::vector<int> shares = cost.pcuShares(g, nodes, pcuCap);
  std::unordered_map<ir::ValueId, std::vector<int>> holders;  // value -> PMUs holding it inside the section
  std::vector<int> partialSinks;  // output buffers the replicas of a reduction write partial sums into
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::NodeId id = nodes[i];
    const ir::Node& n = g.node(id);
    arch::OpCost c = cost.opCost(g, n, passesOf(id));
    // Operands: resident slices, a producer's buffers, or fresh buffers loaded from DDR.
    std::vector<std::vector<int>> sources(n.inputs.size());
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      auto it = holders.find(n.inputs[j]);
      if (c.inputResident[j] || it == holders.end()) {
        KernelRole role = c.inputResident[j] ? KernelRole::Weights : KernelRole::InBuffer;
        for (int k = 0; k < c.inputPmus[j]; ++k) sources[j].push_back(kg.add(UnitKind::Pmu, role, id, 0, k));
        if (it != holders.end()) fanInOut(kg, it->second, sources[j]);  // produced here, then held whole
      } else {
        sources[j] = it->second;
      }
    }
    // Compute: GEMM tiles side by side, or replicated chains of stage groups.
    std::vector<int> heads, tails;
    if (c.cls == arch::OpClass::Gemm) {
      for (int p = 0; p < std::max(1, shares[i]); ++p) {
        int pcu = kg.add(UnitKind::Pcu, KernelRole::Gemm, id, stagesPerPcu, p);
        heads.push_back(pcu);
        tails.push_back(pcu);
      }
    } else if (c.cls == arch::OpClass::Elementwise) {
      int group = std::max(1, c.minPcus);
      int replicas = std::max(1, shares[i] / group);
      for (int r = 0; r < replicas; ++r) {
        int prev = -1, left = c.stages;
        for (int k = 0; k < group; ++k) {
          int pcu = kg.add(UnitKind::Pcu, KernelRole::Stage, id, std::min(left, stagesPerPcu), r);
          left -= stagesPerPcu;
          if (prev < 0) heads.push_back(pcu);
          else kg.connect(prev, pcu);
          prev = pcu;
        }
        tails.push_back(prev);
      }
    }
    // Each operand's buffers (or resident slices) feed the PCUs computing their part.
    for (const auto& s : sources) fanInOut(kg, s, heads);
    // Results.
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      std::vector<int> outs;
      for (int b = 0; b < c.outputPmus[k]; ++b)
        outs.push_back(kg.add(UnitKind::Pmu, KernelRole::OutBuffer, id, 0, b));
      if (outs.empty()) {  // a view (reshape): the operand's buffers hold the result
        if (!sources.empty()) holders[n.outputs[k]] = sources[0];
        continue;
      }
      if (tails.empty()) {  // layout op: PMU to PMU with a new address pattern
        for (const auto& s : sources) fanInOut(kg, s, outs);
      } else {
        fanInOut(kg, tails, outs);
        if (c.outputPartial[k] && tails.size() > 1) partialSinks.insert(partialSinks.end(), outs.begin(), outs.end());
      }
      holders[n.outputs[k]] = std::move(outs);
    }
  }
  // No unit fed by more nets than its links carry: combine trees in front of them.
  if (maxFanIn == 0) return kg;
  std::vector<bool> partial(kg.ops.size(), false);
  for (int k : partialSinks) partial[static_cast<size_t>(k)] = true;
  boundFanIn(kg, maxFanIn < 0 ? arch::unitFanInBound(cost.arch()) : maxFanIn, partial);
  return kg;
}

}  // namespace dfc::lowering
