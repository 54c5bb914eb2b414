#pragma once
// Resource and latency model: per operator (FLOP, off-chip bytes, PCUs, PMUs)
// and per section. It reads only the ArchSpec figures.
//
// Resource model (per operator; lanes L, stages S, clock f, T = targetCycles):
//   GEMM-class (matmul, batch_matmul, conv via its im2col-equivalent GEMM
//   M x K by K x N, batch B): the output is tiled into L x L tiles, one PCU per
//   tile at most; a PCU does L*S MACs per cycle, so
//     pcus = clamp(ceil(flop / (2*L*S*T)), 1, min(B*ceil(M/L)*ceil(N/L), chip PCUs / maxOpShare)).
//   The reused operand (weights, or B of an activation GEMM) is resident:
//   ceil(bytes / pmu_bytes) PMUs; streamed operands and results are
//   double-buffered tiles: 2 PMUs each.
//   Elementwise / normalization / reductions: `stages` pipeline stages
//   (1 for add, 6 for gelu, ...) packed S per PCU; a stage group streams L
//   elements per cycle and is replicated to finish within T cycles:
//     pcus = ceil(stages / S) * clamp(ceil(numel / (L*T)), 1, ...).
//   Params are resident; other operands 2 PMUs each. Layout ops (reshape,
//   transpose, slice) are PMU address patterns: no PCU.
//   Combine trees (arch/FanIn.h): a unit may be fed by at most
//   unitFanInBound nets; the lowering puts trees of Reduce PCUs (partial sums
//   of a reduction's replicas) or Staging PMUs (gathers) in front of units fed
//   by more, and treeUnits counts them the same way: the PCUs of the trees
//   come on top of `pcus` (under a section's cap pcuShares shrinks the
//   compute to leave room for them), their PMUs are part of `pmus`.
// Cost model (per section):
//   compute_us  = max over ops of flop_i / (pcus_i * 2*L*S * f), at least
//                 total flop / peak: the pipeline runs at its slowest stage.
//   offchip_us  = bytes crossing the section boundary (inputs from outside, results
//                 read outside) / HBM (else DDR) bandwidth.
//   onchip_us   = bytes passed between ops inside / (network_link_gbps * PCUs).
//   memory_us   = max(offchip_us, onchip_us)
//   chip_us     = a section wider than one chip sends the cut share of its
//                 internal traffic over PCIe: internal * (k-1)/k / pcie_gbps.
//   latency_us  = max(compute_us, memory_us) + fill + chip_us, with
//   fill        = ops * S cycles (one pass through every PCU stage of the chain).
#include <vector>

#include "arch/ArchSpec.h"
#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::arch {

enum class OpClass { Gemm, Elementwise, Layout };

struct OpCost {
  double flop = 0;
  double bytes = 0;  // operands and results, as if streamed from/to off-chip memory
  int pcus = 0;      // PCUs wanted to hit the target throughput
  int pmus = 0;      // sum of inputPmus and outputPmus, plus treePmus
  // Added: the structure the lowering follows.
  OpClass cls = OpClass::Elementwise;
  int minPcus = 0;               // fewest PCUs the op can run on (its stage groups)
  int stages = 0;                // pipeline stages of one stage group (elementwise)
  std::vector<int> inputPmus;    // per input: resident buffers or 2 (double-buffered)
  std::vector<int> outputPmus;   // per output
  std::vector<bool> inputResident;  // per input: held whole on chip (weights, reused GEMM operand)
  std::vector<bool> outputPartial;  // per output: its replicas write partial sums (a reduction over leading axes)
  int treePcus = 0;                 // combine tree units at `pcus` (treeUnits)
  int treePmus = 0;
};

// The cost model's constants (--compiler-configs-file cost.*).
struct CostConstants {
  double targetCycles = 4096;    // an op's PCUs are sized to finish one call in this many cycles
  int maxOpShare = 4;            // one op takes at most 1/maxOpShare of the chips' PCUs (and one chip's)
  double defaultLinkGbps = 50;   // on-chip link bandwidth when the arch gives none
};

struct GemmShape {
  double batch = 1, m = 1, n = 1, k = 1;
};

struct TreeUnits {
  int pcus = 0;  // Reduce PCUs
  int pmus = 0;  // Staging PMUs
};

class CostModel {
 public:
  explicit CostModel(ArchSpec arch, CostConstants constants = {})
      : m_arch(std::move(arch)), m_constants(constants) {}
  const ArchSpec& arch() const { return m_arch; }
  const CostConstants& constants() const { return m_constants; }
  // Bandwidth of one on-chip network link: the arch's, else defaultLinkGbps.
  double linkGbps() const { return m_arch.networkLinkGbps > 0 ? m_arch.networkLinkGbps : m_constants.defaultLinkGbps; }

  // `passes` > 1: the operator tiled (arch/OperatorTiling.h), one tile of each
  // resident tensor held per pass.
  OpCost opCost(const ir::Graph& graph, const ir::Node& node, int passes = 1) const;
  // The most PCUs one operator takes: 1/maxOpShare of the chips', at most one chip's.
  int maxOpPcus() const;
  // GEMM-equivalent dimensions of a GEMM-class op (false for other ops).
  bool gemmShape(const ir::Graph& graph, const ir::Node& node, GemmShape& out) const;
  // Estimate for a section: values crossing its boundary move off-chip (inputs
  // from outside; results read outside it, as graph outputs or by state
  // updates); values produced and read inside pass between its units on chip.
  partition::SectionEstimate sectionEstimate(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes) const;
  // Same, with the ops' PCUs scaled down (never below their minimum) so that
  // the section uses at most `pcuCap` PCUs (0: no cap).
  partition::SectionEstimate sectionEstimate(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes,
                                             int pcuCap) const;
  // Same, with the graph's users (Graph::computeUsers) computed once by a caller estimating many sections.
  partition::SectionEstimate sectionEstimate(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, int pcuCap,
                                             const std::vector<std::vector<ir::NodeId>>& users) const;
  // PCUs each op of `nodes` gets under `pcuCap` (the figures sectionEstimate used).
  // Under a cap, the shares leave room for the combine trees' PCUs at those shares.
  std::vector<int> pcuShares(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, int pcuCap) const;
  // Combine tree units the lowering adds to an op of cost `c` lowered on
  // `share` PCUs: its replicas into its output buffers, its operands' buffers
  // into its PCUs (or, for a layout op, into its output buffers).
  TreeUnits treeUnits(const OpCost& c, int share) const;

 private:
  ArchSpec m_arch;
  CostConstants m_constants;
};

}  // namespace dfc::arch
