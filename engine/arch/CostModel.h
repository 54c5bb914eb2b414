#pragma once
// Estimates per operator (FLOP, off-chip bytes, PCUs, PMUs) and per section
// (latency = the slower of compute and memory bound, plus pipeline fill).
// A first model: later work refines tiling and on-chip traffic.
#include "arch/ArchSpec.h"
#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::arch {

struct OpCost {
  double flop = 0;
  double bytes = 0;  // operands and results, as if streamed from/to off-chip memory
  int pcus = 0;
  int pmus = 0;
};

class CostModel {
 public:
  explicit CostModel(ArchSpec arch) : m_arch(std::move(arch)) {}
  const ArchSpec& arch() const { return m_arch; }

  OpCost opCost(const ir::Graph& graph, const ir::Node& node) const;
  // Estimate for a section: values crossing its boundary move off-chip; values
  // produced and consumed inside stay in PMUs.
  partition::SectionEstimate sectionEstimate(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes) const;

 private:
  ArchSpec m_arch;
};

}  // namespace dfc::arch
