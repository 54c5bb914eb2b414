#include "partition/Decomposer.h"

namespace dfc::partition {

Expected<std::vector<Subgraph>> decompose(const ir::Graph& g, const DecomposeOptions& options) {
  if (g.nodes.empty()) return makeError("graph '" + g.name + "' has no operators to compile");
  std::vector<Subgraph> out;
  switch (options.level) {
    case OptLevel::O0:
      for (const ir::Node& n : g.nodes) out.push_back({{n.id}, n.scope, {}, -1});
      return out;
    case OptLevel::O1:
      return makeError("-o1 (fusion by rule lists) is not implemented yet; use -o0 or -o3");
    case OptLevel::O3:
      // Sections never mix forward, backward and optimizer work: a new subgraph per role change.
      for (const ir::Node& n : g.nodes) {
        if (out.empty() || g.node(out.back().nodes.front()).role != n.role) out.push_back({{}, {}, {}, -1});
        out.back().nodes.push_back(n.id);
      }
      return out;
  }
  return makeError("unknown optimization level");
}

}  // namespace dfc::partition
