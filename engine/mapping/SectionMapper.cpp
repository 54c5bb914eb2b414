#include "mapping/SectionMapper.h"

#include <cmath>
#include <map>
#include <string>

namespace dfc::mapping {
namespace {

// Short readable name of a section: "s12_conv2d" (one op) or "s3_fc1" (a scope).
std::string sectionName(int id, const ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  const ir::Node& first = g.node(nodes.front());
  std::string what = nodes.size() == 1 ? std::string(ir::opName(first.op))
                                       : (first.scope.empty() ? std::string(ir::roleName(first.role)) : first.scope);
  for (char& c : what)
    if (c == '/') c = '.';
  return "s" + std::to_string(id) + "_" + what;
}

double scaleFor(const MappingOptions& o, ir::NodeRole role) {
  switch (role) {
    case ir::NodeRole::Forward: return o.forwardScale;
    case ir::NodeRole::Backward: return o.backwardScale;
    case ir::NodeRole::Optimizer: return o.optimizerScale;
  }
  return 1.0;
}

struct Mapper {
  const ir::Graph& g;
  const arch::CostModel& cost;
  partition::Plan plan;
  std::map<int, int> hypersectionOfSubgraphKey;  // subgraph hypersection id -> plan hypersection

  void addSection(std::vector<ir::NodeId> nodes, int subgraphHypersection) {
    partition::Section s;
    s.id = static_cast<int>(plan.sections.size());
    s.nodes = std::move(nodes);
    const ir::Node& first = g.node(s.nodes.front());
    s.type = first.role;
    s.hyperfunction = first.scope;
    s.name = sectionName(s.id, g, s.nodes);
    s.estimate = cost.sectionEstimate(g, s.nodes);
    auto it = subgraphHypersection >= 0 ? hypersectionOfSubgraphKey.find(subgraphHypersection)
                                        : hypersectionOfSubgraphKey.end();
    if (it == hypersectionOfSubgraphKey.end()) {
      int id = static_cast<int>(plan.hypersections.size());
      plan.hypersections.push_back({id, "hs" + std::to_string(id) + "_" + s.name.substr(s.name.find('_') + 1), {}});
      if (subgraphHypersection >= 0) hypersectionOfSubgraphKey[subgraphHypersection] = id;
      s.hypersection = id;
    } else {
      s.hypersection = it->second;
    }
    plan.hypersections[static_cast<size_t>(s.hypersection)].sections.push_back(s.id);
    plan.schedule.push_back(s.id);
    plan.sections.push_back(std::move(s));
  }
};

}  // namespace

Expected<partition::Plan> mapSections(const ir::Graph& g, const std::vector<partition::Subgraph>& subgraphs,
                                      const arch::CostModel& cost, partition::OptLevel level,
                                      const MappingOptions& options) {
  Mapper m{g, cost, {}, {}};
  m.plan.level = level;
  const arch::ArchSpec& a = cost.arch();
  for (const auto& sub : subgraphs) {
    if (sub.nodes.empty()) continue;
    double scale = scaleFor(options, g.node(sub.nodes.front()).role);
    if (!(scale > 0 && scale <= 1)) return makeError("resource scaling factors must be in (0, 1]");
    int pcuBudget = std::max(1, static_cast<int>(std::floor(a.totalPcus() * scale)));
    int pmuBudget = std::max(1, static_cast<int>(std::floor(a.totalPmus() * scale)));
    std::vector<ir::NodeId> current;
    int pcus = 0, pmus = 0;
    for (ir::NodeId id : sub.nodes) {
      const ir::Node& n = g.node(id);
      arch::OpCost c = cost.opCost(g, n);
      if (c.pcus > pcuBudget || c.pmus > pmuBudget) {
        bool pcu = c.pcus > pcuBudget;
        return makeError("operator '" + n.name + "' (" + std::string(ir::opName(n.op)) + ") needs " +
                         std::to_string(pcu ? c.pcus : c.pmus) + (pcu ? " PCUs" : " PMUs") + " but a section may use " +
                         std::to_string(pcu ? pcuBudget : pmuBudget) + " on " + a.name +
                         "; raise the resource scaling factor or use a larger arch / more chips");
      }
      if (!current.empty() && (pcus + c.pcus > pcuBudget || pmus + c.pmus > pmuBudget)) {
        m.addSection(std::move(current), -1);
        current.clear();
        pcus = pmus = 0;
      }
      current.push_back(id);
      pcus += c.pcus;
      pmus += c.pmus;
    }
    // A subgraph that fits in one section keeps its hypersection (repeats share it).
    bool whole = current.size() == sub.nodes.size();
    if (!current.empty()) m.addSection(std::move(current), whole ? sub.hypersection : -1);
  }
  return std::move(m.plan);
}

}  // namespace dfc::mapping
