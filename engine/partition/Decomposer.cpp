#include "partition/Decomposer.h"

#include <spdlog/spdlog.h>

#include "partition/FusionMatcher.h"
#include "partition/FusionRules.h"
#include "partition/Hypersections.h"

namespace dfc::partition {
namespace {

// "h.3/attn" -> "h.3": the hyperfunction instance a node belongs to.
std::string_view topScope(const std::string& scope) {
  std::string_view s = scope;
  return s.substr(0, s.find('/'));
}

}  // namespace

Expected<std::vector<Subgraph>> decompose(const ir::Graph& g, const DecomposeOptions& options) {
  if (g.nodes.empty()) return makeError("graph '" + g.name + "' has no operators to compile");
  std::vector<Subgraph> out;
  switch (options.level) {
    case OptLevel::O0:
      // As SambaFlow: hypersections on by default, so repeated operators compile once.
      for (const ir::Node& n : g.nodes) out.push_back({{n.id}, n.scope, {}, -1});
      assignHypersections(g, out);
      return out;
    case OptLevel::O1: {
      const FusionRuleList* rules = options.rules;
      Expected<FusionRuleList> loaded = FusionRuleList{};
      if (!rules) {
        loaded = loadFusionRuleList(options.o1RuleList);
        if (!loaded) return loaded.error();
        rules = &*loaded;
      }
      FusionResult fused = fuseByRules(g, *rules);
      for (const auto& [rule, anchors] : fused.searchesCut)
        spdlog::warn("-o1 rule '{}': the match search gave up at {} anchor node(s) after {} steps each "
                     "(too many optional nodes); those nodes stay unfused",
                     rule, anchors, kMatchStepsPerAnchor);
      out = std::move(fused.subgraphs);
      assignHypersections(g, out);
      return out;
    }
    case OptLevel::O3:
      if (options.enableHypersection) {
        // Nodes stay in graph order; a new subgraph starts where the hyperfunction instance or the role changes.
        for (const ir::Node& n : g.nodes) {
          if (out.empty() || g.node(out.back().nodes.front()).role != n.role ||
              topScope(g.node(out.back().nodes.front()).scope) != topScope(n.scope))
            out.push_back({{}, std::string(topScope(n.scope)), {}, -1});
          out.back().nodes.push_back(n.id);
        }
        assignHypersections(g, out);
        return out;
      }
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
