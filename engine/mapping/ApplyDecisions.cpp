#include "mapping/ApplyDecisions.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "support/JsonWriter.h"

namespace dfc::mapping {
namespace {

using NodeSet = std::vector<char>;  // per node: 1 = in the set

// A pattern in a message: as written, cut short when very long (one readable line).
std::string clipped(const std::string& text) {
  constexpr size_t kMax = 96;
  return text.size() <= kMax ? text : text.substr(0, kMax - 3) + "...";
}

// A group as the issue writes one: h.0/mlp/*
std::string groupText(const Decision& d) { return clipped(patternText(d)); }

std::string opName(const ir::Graph& g, ir::NodeId id) { return "'" + g.node(id).name + "'"; }

partition::CutReason cutBeforeReason(const ir::Graph& g, const DecisionFile& file, int decision, ir::NodeId id) {
  return {partition::CutKind::Decision,
          file.where(file.decisions[static_cast<size_t>(decision)]) + ": cut_before " + opName(g, id)};
}

// Every pattern of every decision names some operator; chips only with --model-parallel, below --n-chips.
Status matchAll(const ir::Graph& g, const DecisionFile& file, const DecisionContext& ctx, AppliedDecisions& out) {
  for (const Decision& d : file.decisions) {
    std::string key(d.kind == DecisionKind::Chip ? "nodes" : decisionKindName(d.kind));
    for (const std::string& p : d.patterns) {
      Decision one = d;
      one.patterns = {p};
      if (matchDecision(g, one).empty())
        return makeError(file.where(d) + ": key '" + key + "': '" + clipped(p) + "' matches no operator" +
                         (d.role ? " of role " + std::string(ir::roleName(*d.role)) : std::string()) +
                         " (names look like '" + (g.nodes.empty() ? std::string("?") : g.nodes.front().name) + "')");
    }
    if (d.chip >= 0 && !ctx.modelParallel)
      return makeError(file.where(d) + ": key 'chip': assigning chips needs --model-parallel");
    if (d.chip >= ctx.chips)
      return makeError(file.where(d) + ": key 'chip': chip " + std::to_string(d.chip) + ", but --n-chips is " +
                       std::to_string(ctx.chips) + " (chips 0.." + std::to_string(ctx.chips - 1) + ")");
    out.matched.push_back(matchDecision(g, d));
  }
  return {};
}

// Per node its chip; a node two decisions put on different chips is refused naming both.
Status assignNodeChips(const ir::Graph& g, const DecisionFile& file, AppliedDecisions& out) {
  out.nodeChip.assign(g.nodes.size(), 0);
  std::vector<int> decidedBy(g.nodes.size(), -1);
  for (size_t i = 0; i < file.decisions.size(); ++i) {
    const Decision& d = file.decisions[i];
    if (d.chip < 0) continue;
    for (ir::NodeId id : out.matched[i]) {
      int prev = decidedBy[static_cast<size_t>(id)];
      if (prev >= 0 && file.decisions[static_cast<size_t>(prev)].chip != d.chip)
        return makeError(file.where(d) + ": key 'chip': " + opName(g, id) + " is put on chip " + std::to_string(d.chip) +
                         " here and on chip " + std::to_string(file.decisions[static_cast<size_t>(prev)].chip) +
                         " at line " + std::to_string(file.decisions[static_cast<size_t>(prev)].line));
      decidedBy[static_cast<size_t>(id)] = static_cast<int>(i);
      out.nodeChip[static_cast<size_t>(id)] = d.chip;
    }
  }
  return {};
}

// Nodes reachable from `group` (forward: through users; else through producers), the group excluded.
NodeSet reach(const ir::Graph& g, const std::vector<std::vector<ir::NodeId>>& users, const NodeSet& group,
              bool forward) {
  NodeSet seen(g.nodes.size(), 0);
  std::vector<ir::NodeId> stack;
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i]) stack.push_back(static_cast<ir::NodeId>(i));
  auto visit = [&](ir::NodeId n) {
    if (n == ir::kNoNode || seen[static_cast<size_t>(n)] || group[static_cast<size_t>(n)]) return;
    seen[static_cast<size_t>(n)] = 1;
    stack.push_back(n);
  };
  while (!stack.empty()) {
    const ir::Node& n = g.node(stack.back());
    stack.pop_back();
    if (forward) {
      for (ir::ValueId o : n.outputs)
        for (ir::NodeId u : users[static_cast<size_t>(o)]) visit(u);
    } else {
      for (ir::ValueId in : n.inputs) visit(g.value(in).producer);
    }
  }
  return seen;
}

// A together group, with what lies after and before it in the graph.
struct Group {
  size_t decision = 0;
  std::vector<ir::NodeId> nodes;  // graph order
  NodeSet members, after, before;
};

// One role, convex (no outside operator both fed by the group and feeding it).
Status checkGroupShape(const ir::Graph& g, const DecisionFile& file, const Group& group) {
  const Decision& d = file.decisions[group.decision];
  const ir::Node& first = g.node(group.nodes.front());
  for (ir::NodeId id : group.nodes)
    if (g.node(id).role != first.role)
      return makeError(file.where(d) + ": 'together' group " + groupText(d) + " holds " +
                       std::string(ir::roleName(first.role)) + " " + opName(g, first.id) + " and " +
                       std::string(ir::roleName(g.node(id).role)) + " " + opName(g, id) +
                       ", which never share a section (add 'role: " + std::string(ir::roleName(first.role)) + "')");
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (group.after[i] && group.before[i])
      return makeError(file.where(d) + ": 'together' group " + groupText(d) + " cannot be one section: " +
                       opName(g, static_cast<ir::NodeId>(i)) +
                       ", not in the group, lies between its operators (add it to the group)");
  return {};
}

// The group fits one section: the mapper's own per-operator accounting, summed.
Status checkGroupFits(const ir::Graph& g, const DecisionFile& file, const Group& group, const arch::CostModel& cost,
                      const MappingOptions& options) {
  const Decision& d = file.decisions[group.decision];
  const ir::Node& first = g.node(group.nodes.front());
  const int pcuBudget = sectionPcuBudget(cost.arch(), options, first);
  const int pmuBudget = sectionPmuBudget(cost.arch(), options, first);
  int pcus = 0, pmus = 0;
  for (ir::NodeId id : group.nodes) {
    arch::OpCost c = cost.opCost(g, g.node(id));
    pcus += std::min(c.pcus, pcuBudget);
    pmus += c.pmus;
  }
  const bool pcu = pcus > pcuBudget;
  if (!pcu && pmus <= pmuBudget) return {};
  const arch::ArchSpec& a = cost.arch();
  return makeError(file.where(d) + ": 'together' group " + groupText(d) + " (" + std::to_string(group.nodes.size()) +
                   " operators) needs " + std::to_string(pcu ? pcus : pmus) + (pcu ? " PCUs" : " PMUs") +
                   ", a section may use " + std::to_string(pcu ? pcuBudget : pmuBudget) + " on " + a.name + " (" +
                   std::to_string(a.chips) + " chip(s)); split the group or raise the " +
                   std::string(ir::roleName(first.role)) + " resource scaling factor");
}

Expected<std::vector<Group>> buildGroups(const ir::Graph& g, const DecisionFile& file, const AppliedDecisions& applied,
                                         const arch::CostModel& cost, const MappingOptions& options) {
  const auto users = g.computeUsers();
  std::vector<Group> groups;
  std::vector<int> groupOf(g.nodes.size(), -1);
  for (size_t i = 0; i < file.decisions.size(); ++i) {
    if (file.decisions[i].kind != DecisionKind::Together) continue;
    Group group{i, applied.matched[i], NodeSet(g.nodes.size(), 0), {}, {}};
    for (ir::NodeId id : group.nodes) {
      int other = groupOf[static_cast<size_t>(id)];
      if (other >= 0)
        return makeError(file.where(file.decisions[i]) + ": 'together' group " + groupText(file.decisions[i]) +
                         " shares " + opName(g, id) + " with the group at line " +
                         std::to_string(file.decisions[groups[static_cast<size_t>(other)].decision].line) +
                         " (an operator is in one section)");
      groupOf[static_cast<size_t>(id)] = static_cast<int>(groups.size());
      group.members[static_cast<size_t>(id)] = 1;
      int chip = applied.nodeChip[static_cast<size_t>(id)], firstChip = applied.nodeChip[static_cast<size_t>(group.nodes.front())];
      if (chip != firstChip)
        return makeError(file.where(file.decisions[i]) + ": 'together' group " + groupText(file.decisions[i]) +
                         " has operators on chips " + std::to_string(firstChip) + " and " + std::to_string(chip) + " (" +
                         opName(g, id) + "); a section runs on one chip");
    }
    group.after = reach(g, users, group.members, true);
    group.before = reach(g, users, group.members, false);
    DFC_TRY(checkGroupShape(g, file, group));
    DFC_TRY(checkGroupFits(g, file, group, cost, options));
    groups.push_back(std::move(group));
  }
  return groups;
}

// A subgraph without the groups' operators, cut into runs that never hold one
// operator feeding a group and another fed by it (that run and the group would
// wait on each other). Returns whether anything changed.
bool splitAroundGroups(const ir::Graph& g, const partition::Subgraph& sub, const std::vector<Group>& groups,
                       const DecisionFile& file, partition::CutReason firstCut, std::vector<partition::Subgraph>& out) {
  bool changed = false;
  partition::Subgraph run{{}, sub.hyperfunction, sub.rule, sub.hypersection, std::move(firstCut)};
  std::set<size_t> runAfter, runBefore;  // groups some run operator comes after / before
  auto flush = [&](partition::CutReason next) {
    if (!run.nodes.empty()) out.push_back(run);
    if (!run.nodes.empty() || next.kind != partition::CutKind::None) run.cut = std::move(next);
    run.nodes.clear();
    runAfter.clear();
    runBefore.clear();
  };
  for (ir::NodeId id : sub.nodes) {
    const size_t n = static_cast<size_t>(id);
    int memberOf = -1, conflictWith = -1;
    for (size_t k = 0; k < groups.size(); ++k) {
      if (groups[k].members[n]) memberOf = static_cast<int>(k);
      if ((groups[k].after[n] && runBefore.count(k)) || (groups[k].before[n] && runAfter.count(k)))
        conflictWith = static_cast<int>(k);
    }
    if (memberOf >= 0 || conflictWith >= 0) {
      changed = true;
      const Group& gr = groups[static_cast<size_t>(memberOf >= 0 ? memberOf : conflictWith)];
      flush({partition::CutKind::Decision, file.where(file.decisions[gr.decision]) + ": " +
                                               (memberOf >= 0 ? "apart from" : opName(g, id) + " depends on") +
                                               " the together group " + groupText(file.decisions[gr.decision])});
    }
    if (memberOf >= 0) continue;
    run.nodes.push_back(id);
    for (size_t k = 0; k < groups.size(); ++k) {
      if (groups[k].after[n]) runAfter.insert(k);
      if (groups[k].before[n]) runBefore.insert(k);
    }
  }
  flush({});
  return changed;
}

// Subgraphs `[first, last)` were cut from one: unless it is whole, none is a repeat of anything.
void forgetHypersections(std::vector<partition::Subgraph>& subs, size_t first, bool changed) {
  if (!changed) return;
  for (size_t i = first; i < subs.size(); ++i) subs[i].hypersection = -1;
}

std::vector<partition::Subgraph> extractGroups(const ir::Graph& g, const std::vector<partition::Subgraph>& subs,
                                               const std::vector<Group>& groups, const DecisionFile& file) {
  std::vector<partition::Subgraph> out;
  std::vector<char> placed(groups.size(), 0);
  for (const partition::Subgraph& sub : subs) {
    partition::CutReason firstCut = sub.cut;
    // A group goes where its first operator was.
    for (size_t k = 0; k < groups.size(); ++k)
      if (!placed[k] && std::find(sub.nodes.begin(), sub.nodes.end(), groups[k].nodes.front()) != sub.nodes.end()) {
        placed[k] = 1;
        const Decision& d = file.decisions[groups[k].decision];
        out.push_back({groups[k].nodes,
                       g.node(groups[k].nodes.front()).scope,
                       "together",
                       -1,
                       {partition::CutKind::Decision, file.where(d) + ": the together group " + groupText(d)}});
        firstCut = {partition::CutKind::Decision, file.where(d) + ": apart from the together group " + groupText(d)};
      }
    size_t first = out.size();
    forgetHypersections(out, first, splitAroundGroups(g, sub, groups, file, firstCut, out));
  }
  return out;
}

// Cuts each subgraph before every operator for which `startsHere` gives a reason.
template <typename Pred>
std::vector<partition::Subgraph> cutWhere(const std::vector<partition::Subgraph>& subs, Pred startsHere) {
  std::vector<partition::Subgraph> out;
  for (const partition::Subgraph& sub : subs) {
    size_t first = out.size();
    out.push_back({{}, sub.hyperfunction, sub.rule, sub.hypersection, sub.cut});
    for (size_t i = 0; i < sub.nodes.size(); ++i) {
      if (i > 0)
        if (std::optional<partition::CutReason> why = startsHere(sub.nodes[i - 1], sub.nodes[i]))
          out.push_back({{}, sub.hyperfunction, sub.rule, -1, std::move(*why)});
      out.back().nodes.push_back(sub.nodes[i]);
    }
    forgetHypersections(out, first, out.size() - first > 1);
  }
  return out;
}

Status checkCutsOutsideGroups(const ir::Graph& g, const DecisionFile& file, const AppliedDecisions& applied,
                              const std::vector<Group>& groups) {
  for (size_t i = 0; i < file.decisions.size(); ++i) {
    if (file.decisions[i].kind != DecisionKind::CutBefore) continue;
    for (ir::NodeId id : applied.matched[i])
      for (const Group& group : groups)
        if (group.members[static_cast<size_t>(id)] && group.nodes.front() != id)
          return makeError(file.where(file.decisions[i]) + ": 'cut_before' " + opName(g, id) +
                           " would cut the together group at line " +
                           std::to_string(file.decisions[group.decision].line));
  }
  return {};
}

}  // namespace

arch::ArchSpec oneChipOf(const arch::ArchSpec& arch) {
  arch::ArchSpec a = arch;
  const double chips = std::max(1, arch.chips);
  a.peakTflops /= chips;
  a.ddrGbps /= chips;
  a.hbmGbps /= chips;
  a.chips = 1;
  return a;
}

// A cut_before naming an operator that already starts a subgraph (-o0 cuts
// before every operator; a fusion rule's match may end there) still records
// the decision: it is the reason the user asked for, and what they look for
// after editing it. A chip or role boundary there stays: it cuts regardless.
void recordCutBefore(const ir::Graph& g, const DecisionFile& file, const std::vector<int>& cutBefore,
                     std::vector<partition::Subgraph>& subgraphs) {
  for (size_t i = 1; i < subgraphs.size(); ++i) {  // the first starts the step: no boundary
    partition::Subgraph& s = subgraphs[i];
    const partition::CutKind kind = s.cut.kind;
    if (s.nodes.empty() || kind == partition::CutKind::Chip || kind == partition::CutKind::RoleChange) continue;
    if (int d = cutBefore[static_cast<size_t>(s.nodes.front())]; d >= 0)
      s.cut = cutBeforeReason(g, file, d, s.nodes.front());
  }
}

Expected<AppliedDecisions> applyDecisions(const ir::Graph& g, std::vector<partition::Subgraph>& subgraphs,
                                          const DecisionFile& file, const arch::CostModel& cost,
                                          const MappingOptions& options, const DecisionContext& context) {
  AppliedDecisions applied;
  DFC_TRY(matchAll(g, file, context, applied));
  DFC_TRY(assignNodeChips(g, file, applied));
  auto groups = buildGroups(g, file, applied, cost, options);
  if (!groups) return groups.error();
  DFC_TRY(checkCutsOutsideGroups(g, file, applied, *groups));
  std::vector<int> cutBefore(g.nodes.size(), -1);  // per node: the cut_before decision naming it
  for (size_t i = 0; i < file.decisions.size(); ++i)
    if (file.decisions[i].kind == DecisionKind::CutBefore)
      for (ir::NodeId id : applied.matched[i]) cutBefore[static_cast<size_t>(id)] = static_cast<int>(i);
  std::vector<partition::Subgraph> shaped = groups->empty() ? subgraphs : extractGroups(g, subgraphs, *groups, file);
  const std::vector<int>& chip = applied.nodeChip;
  shaped = cutWhere(shaped, [&](ir::NodeId prev, ir::NodeId id) -> std::optional<partition::CutReason> {
    const int p = chip[static_cast<size_t>(prev)], c = chip[static_cast<size_t>(id)];
    if (p != c)
      return partition::CutReason{
          partition::CutKind::Chip,
          "chip " + std::to_string(p) + " -> chip " + std::to_string(c) + " at " + opName(g, id), p, 0, c};
    if (int d = cutBefore[static_cast<size_t>(id)]; d >= 0) return cutBeforeReason(g, file, d, id);
    return std::nullopt;
  });
  recordCutBefore(g, file, cutBefore, shaped);
  subgraphs = std::move(shaped);
  return applied;
}

}  // namespace dfc::mapping
