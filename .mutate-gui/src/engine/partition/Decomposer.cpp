#include "partition/Decomposer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

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

std::string quoted(const ir::Node& n) { return "'" + n.name + "' (" + std::string(ir::opName(n.op)) + ")"; }

// An -o1 operator left alone: no rule names its kind, or the rules that do matched nothing around it.
std::string whyUnfused(const ir::Node& n, const FusionRuleList& rules) {
  for (const FusionRule& r : rules.rules)
    for (const PatternNode& p : r.nodes)
      for (const PatternOption& o : p.options)
        if (std::find(o.ops.begin(), o.ops.end(), n.op) != o.ops.end())
          return quoted(n) + " fused with nothing: rules taking " + std::string(ir::opName(n.op)) + " (first '" +
                 r.name + "') match none of its neighbours";
  return quoted(n) + " fused with nothing: no rule of the list takes " + std::string(ir::opName(n.op));
}

// Why subgraph `cur` starts apart from `prev`, from what the level cuts by.
CutReason subgraphCut(const ir::Graph& g, const Subgraph& prev, const Subgraph& cur, OptLevel level,
                      const FusionRuleList* rules) {
  const ir::Node& last = g.node(prev.nodes.back());
  const ir::Node& first = g.node(cur.nodes.front());
  if (last.role != first.role)
    return {CutKind::RoleChange, std::string(ir::roleName(last.role)) + " -> " + std::string(ir::roleName(first.role))};
  if (level == OptLevel::O0) return {CutKind::OperatorMode, "-o0: " + quoted(first) + " in a section of its own"};
  if (level == OptLevel::O3)
    return {CutKind::Hyperfunction, "hyperfunction '" + std::string(topScope(last.scope)) + "' -> '" +
                                        std::string(topScope(first.scope)) + "'"};
  if (cur.rule.empty()) return {CutKind::Unfused, whyUnfused(first, *rules)};
  if (prev.rule.empty()) return {CutKind::Unfused, whyUnfused(last, *rules)};
  return {CutKind::FusionRule, "rule '" + prev.rule + "' match ends at " + quoted(last) + ", rule '" + cur.rule +
                                   "' match starts at " + quoted(first)};
}

void recordSubgraphCuts(const ir::Graph& g, std::vector<Subgraph>& out, OptLevel level, const FusionRuleList* rules) {
  for (size_t k = 1; k < out.size(); ++k) out[k].cut = subgraphCut(g, out[k - 1], out[k], level, rules);
}

Expected<std::vector<Subgraph>> decomposeWhole(const ir::Graph& g, const DecomposeOptions& options) {
  if (g.nodes.empty()) return makeError("graph '" + g.name + "' has no operators to compile");
  std::vector<Subgraph> out;
  switch (options.level) {
    case OptLevel::O0:
      // As SambaFlow: hypersections on by default, so repeated operators compile once.
      for (const ir::Node& n : g.nodes) out.push_back({{n.id}, n.scope, {}, -1});
      recordSubgraphCuts(g, out, options.level, nullptr);
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
      FusionResult fused = fuseByRules(g, *rules, options.matchStepsPerAnchor);
      for (const auto& [rule, anchors] : fused.searchesCut)
        spdlog::warn("-o1 rule '{}': the match search gave up at {} anchor node(s) after {} steps each "
                     "(too many optional nodes); those nodes stay unfused",
                     rule, anchors, options.matchStepsPerAnchor);
      out = std::move(fused.subgraphs);
      recordSubgraphCuts(g, out, options.level, rules);
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
        recordSubgraphCuts(g, out, options.level, nullptr);
        assignHypersections(g, out);
        return out;
      }
      // Sections never mix forward, backward and optimizer work: a new subgraph per role change.
      for (const ir::Node& n : g.nodes) {
        if (out.empty() || g.node(out.back().nodes.front()).role != n.role) out.push_back({{}, {}, {}, -1});
        out.back().nodes.push_back(n.id);
      }
      recordSubgraphCuts(g, out, options.level, nullptr);
      return out;
  }
  return makeError("unknown optimization level");
}

}  // namespace

void splitLongSubgraphs(std::vector<Subgraph>& subgraphs, int maxOps) {
  if (maxOps <= 0) return;
  int nextId = 0;
  for (const Subgraph& s : subgraphs) nextId = std::max(nextId, s.hypersection + 1);
  std::map<std::pair<int, size_t>, int> pieceIds;  // (hypersection, piece) -> hypersection of the piece
  std::vector<Subgraph> out;
  const size_t limit = static_cast<size_t>(maxOps);
  for (const Subgraph& s : subgraphs) {
    for (size_t start = 0, piece = 0; start < s.nodes.size(); start += limit, ++piece) {
      Subgraph p{{}, s.hyperfunction, s.rule, -1, s.cut};
      const size_t end = std::min(s.nodes.size(), start + limit);
      if (piece > 0)
        p.cut = {CutKind::SubgraphOps, "fusion.max_subgraph_ops " + std::to_string(maxOps) + " reached", maxOps, 1,
                 maxOps};
      p.nodes.assign(s.nodes.begin() + static_cast<std::ptrdiff_t>(start),
                     s.nodes.begin() + static_cast<std::ptrdiff_t>(end));
      if (s.hypersection >= 0 && piece == 0) p.hypersection = s.hypersection;
      if (s.hypersection >= 0 && piece > 0) {
        auto [it, added] = pieceIds.try_emplace({s.hypersection, piece}, nextId);
        if (added) ++nextId;
        p.hypersection = it->second;
      }
      out.push_back(std::move(p));
    }
  }
  subgraphs = std::move(out);
}

Expected<std::vector<Subgraph>> decompose(const ir::Graph& g, const DecomposeOptions& options) {
  auto subgraphs = decomposeWhole(g, options);
  if (subgraphs) splitLongSubgraphs(*subgraphs, options.maxSubgraphOps);
  return subgraphs;
}

}  // namespace dfc::partition
