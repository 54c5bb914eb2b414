#pragma once
// A section lowered to kernel ops: PCU compute stages and PMU buffers, and the
// dataflow edges (pipeline links) between them. The placer maps each kernel op
// onto one physical unit of its kind.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Graph.h"

namespace dfc::lowering {

enum class UnitKind : uint8_t { Pcu, Pmu };

enum class KernelRole : uint8_t {
  Gemm,         // PCU: a GEMM output tile, K reduced along its stages
  Stage,        // PCU: a group of elementwise / reduction pipeline stages
  Weights,      // PMU: a resident operand slice (weights, reused GEMM operand)
  InBuffer,     // PMU: a double-buffered tile of a streamed operand (from DDR or a producer)
  OutBuffer,    // PMU: a double-buffered tile of a result
  Reduce,       // PCU: adds partial results of a reduction's replicas (a combine tree, FanInBound.h)
  Staging,      // PMU: gathers a group of units' data on its way into a unit fed by too many (FanInBound.h)
};
std::string_view kernelRoleName(KernelRole role);

struct KernelOp {
  int id = 0;
  UnitKind unit = UnitKind::Pcu;
  KernelRole role = KernelRole::Stage;
  ir::NodeId node = ir::kNoNode;  // the math op it comes from
  int stages = 0;                 // PCU: pipeline stages in use
  int slice = 0;                  // which slice / replica of the op's work
};

struct KernelEdge {
  int from = 0;
  int to = 0;
};

struct KernelGraph {
  std::vector<KernelOp> ops;
  std::vector<KernelEdge> edges;

  int add(UnitKind unit, KernelRole role, ir::NodeId node, int stages = 0, int slice = 0) {
    ops.push_back({static_cast<int>(ops.size()), unit, role, node, stages, slice});
    return ops.back().id;
  }
  void connect(int from, int to) { edges.push_back({from, to}); }
  int count(UnitKind unit) const {
    int n = 0;
    for (const auto& op : ops) n += op.unit == unit;
    return n;
  }
  int pcus() const { return count(UnitKind::Pcu); }
  int pmus() const { return count(UnitKind::Pmu); }
};

}  // namespace dfc::lowering
