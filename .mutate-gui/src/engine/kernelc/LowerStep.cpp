// The lower step: one kernel graph per distinct structure.
#include <string>
#include <unordered_map>

#include "kernelc/LinkSteps.h"
#include "lowering/Lowerer.h"

namespace dfc::kernelc {
namespace {

// Structural signature of a kernel graph: identical ones (repeated layers,
// declared hypersections or not) place and route identically, so once.
std::string signature(const lowering::KernelGraph& kg) {
  std::string sig;
  sig.reserve(kg.ops.size() * 4 + kg.edges.size() * 8);
  auto put = [&](uint32_t v) { sig.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const auto& op : kg.ops)
    put(static_cast<uint32_t>(op.unit) << 24 | static_cast<uint32_t>(op.role) << 16 |
        static_cast<uint32_t>(op.stages & 0xff) << 8);
  put(0xffffffffu);
  for (const auto& e : kg.edges) {
    put(static_cast<uint32_t>(e.from));
    put(static_cast<uint32_t>(e.to));
  }
  return sig;
}

lowering::KernelGraph lowerOne(const ir::Graph& g, const partition::Section& s, const arch::CostModel& cost, int cap) {
  return lowering::lowerSection(g, s.nodes, cost, cap, -1, s.tiling);
}

}  // namespace

std::vector<size_t> LoweredPlan::distinct() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < placedAs.size(); ++i)
    if (placedAs[i] == static_cast<int>(i)) out.push_back(i);
  return out;
}

LoweredPlan lowerPlan(const ir::Graph& g, const partition::Plan& plan, const arch::CostModel& cost,
                      const mapping::MappingOptions& options) {
  LoweredPlan out;
  out.graphs.resize(plan.hypersections.size());
  out.from.assign(plan.hypersections.size(), nullptr);
  out.placedAs.assign(plan.hypersections.size(), -1);
  std::unordered_map<std::string, int> bySignature;
  for (const partition::Hypersection& hs : plan.hypersections) {
    if (hs.sections.empty()) continue;
    const auto id = static_cast<size_t>(hs.id);
    const partition::Section& rep = plan.sections.at(static_cast<size_t>(hs.sections.front()));
    const int cap = mapping::sectionPcuBudget(cost.arch(), options, g.node(rep.nodes.front()));
    out.graphs[id] = lowerOne(g, rep, cost, cap);
    out.from[id] = &rep;
    auto [it, fresh] = bySignature.try_emplace(signature(out.graphs[id]), static_cast<int>(id));
    // Measuring what reuse saves (no reuse): every graph placed, identical or not.
    out.placedAs[id] = fresh || !options.reuseCompiled ? static_cast<int>(id) : it->second;
    if (options.reuseCompiled) continue;
    for (size_t i = 1; i < hs.sections.size(); ++i) {
      const partition::Section& inst = plan.sections.at(static_cast<size_t>(hs.sections[i]));
      out.placedAs.push_back(static_cast<int>(out.graphs.size()));
      out.graphs.push_back(lowerOne(g, inst, cost, cap));
      out.from.push_back(&inst);
    }
  }
  return out;
}

}  // namespace dfc::kernelc
