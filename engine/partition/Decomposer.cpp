#include "partition/Decomposer.h"

#include <string>

namespace dfc::partition {
namespace {

// Short readable name of a section: "s12_conv2d" (o0) or "s3_fc1" (o3).
std::string sectionName(int id, const ir::Graph& g, const std::vector<ir::NodeId>& nodes, OptLevel level) {
  const ir::Node& first = g.node(nodes.front());
  std::string what = level == OptLevel::O0 ? std::string(ir::opName(first.op))
                                           : (first.scope.empty() ? std::string(ir::roleName(first.role)) : first.scope);
  for (char& c : what)
    if (c == '/') c = '.';
  return "s" + std::to_string(id) + "_" + what;
}

void addSection(Plan& plan, const ir::Graph& g, const arch::CostModel& cost, std::vector<ir::NodeId> nodes) {
  Section s;
  s.id = static_cast<int>(plan.sections.size());
  s.nodes = std::move(nodes);
  const ir::Node& first = g.node(s.nodes.front());
  s.type = first.role;
  s.hyperfunction = first.scope;
  s.name = sectionName(s.id, g, s.nodes, plan.level);
  s.estimate = cost.sectionEstimate(g, s.nodes);
  // Until hypersection detection exists, each section is its own hypersection.
  s.hypersection = s.id;
  plan.hypersections.push_back(Hypersection{s.id, "hs" + std::to_string(s.id) + "_" + s.name.substr(s.name.find('_') + 1), {s.id}});
  plan.schedule.push_back(s.id);
  plan.sections.push_back(std::move(s));
}

}  // namespace

Expected<Plan> decompose(const ir::Graph& g, const arch::CostModel& cost, const DecomposeOptions& options) {
  Plan plan;
  plan.level = options.level;
  if (g.nodes.empty()) return makeError("graph '" + g.name + "' has no operators to compile");
  switch (options.level) {
    case OptLevel::O0:
      for (const ir::Node& n : g.nodes) addSection(plan, g, cost, {n.id});
      return plan;
    case OptLevel::O1:
      return makeError("-o1 (fusion by rule lists) is not implemented yet; use -o0 or -o3");
    case OptLevel::O3: {
      const arch::ArchSpec& a = cost.arch();
      std::vector<ir::NodeId> current;
      int pcus = 0, pmus = 0;
      for (const ir::Node& n : g.nodes) {
        arch::OpCost c = cost.opCost(g, n);
        if (c.pcus > a.totalPcus() || c.pmus > a.totalPmus())
          return makeError("operator '" + n.name + "' (" + std::string(ir::opName(n.op)) + ") needs " +
                           std::to_string(c.pcus) + " PCUs and " + std::to_string(c.pmus) + " PMUs; " + a.name +
                           " has " + std::to_string(a.totalPcus()) + " / " + std::to_string(a.totalPmus()));
        bool roleChanges = !current.empty() && g.node(current.front()).role != n.role;
        bool overflows = pcus + c.pcus > a.totalPcus() || pmus + c.pmus > a.totalPmus();
        if (!current.empty() && (roleChanges || overflows)) {
          addSection(plan, g, cost, std::move(current));
          current.clear();
          pcus = pmus = 0;
        }
        current.push_back(n.id);
        pcus += c.pcus;
        pmus += c.pmus;
      }
      if (!current.empty()) addSection(plan, g, cost, std::move(current));
      return plan;
    }
  }
  return makeError("unknown optimization level");
}

}  // namespace dfc::partition
