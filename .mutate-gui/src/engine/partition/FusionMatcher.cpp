#include "partition/FusionMatcher.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <queue>

namespace dfc::partition {
namespace {

using ir::NodeId;
constexpr NodeId kUnset = -3;
constexpr NodeId kSkipped = -2;

class Matcher {
 public:
  Matcher(const ir::Graph& g, int64_t stepBudget)
      : m_stepBudget(stepBudget),
        m_g(g), m_users(g.computeUsers()), m_groupOf(g.nodes.size(), -1), m_inMatch(g.nodes.size(), 0),
        m_seen(g.nodes.size(), 0), m_isGraphOutput(g.values.size(), 0) {
    for (ir::ValueId v : g.outputs)
      if (v >= 0 && static_cast<size_t>(v) < g.values.size()) m_isGraphOutput[static_cast<size_t>(v)] = 1;
    for (const ir::Node& n : g.nodes)
      for (ir::ValueId in : n.inputs)
        if (NodeId p = g.value(in).producer; p != ir::kNoNode && p >= n.id) m_topological = false;
  }

  void run(const FusionRuleList& list, FusionResult& result) {
    for (const FusionRule& rule : list.rules) {
      m_rule = &rule;
      m_order = processingOrder(rule);
      const PatternNode& anchor = rule.nodes[static_cast<size_t>(m_order.front())];
      // Ops the anchor can take: other nodes are skipped without a try.
      std::vector<char> anchorOp(static_cast<size_t>(ir::numOpKinds()), 0);
      for (const PatternOption& opt : anchor.options)
        for (ir::OpKind op : opt.ops) anchorOp[static_cast<size_t>(op)] = 1;
      m_scratch.resize(m_order.size());
      m_walked.assign(rule.nodes.size(), 0);
      m_walk = 0;
      for (const ir::Node& n : m_g.nodes) {
        if (!anchorOp[static_cast<size_t>(n.op)]) continue;
        m_assign.assign(rule.nodes.size(), kUnset);
        m_included.assign(rule.nodes.size(), false);
        m_role = n.role;
        if (!tryAssign(m_order.front(), anchor, n.id)) continue;
        m_steps = 0;
        if (extend(1)) ++result.matchCounts[rule.name];
        if (m_steps > m_stepBudget) ++result.searchesCut[rule.name];
        for (NodeId a : m_assign)
          if (a >= 0) m_inMatch[static_cast<size_t>(a)] = 0;
      }
    }
    result.rejectedNonConvex = m_rejected;
    result.subgraphs = schedule();
  }

 private:
  int64_t m_stepBudget;  // extend() calls allowed per anchor
  const ir::Graph& m_g;
  std::vector<std::vector<NodeId>> m_users;
  std::vector<int> m_groupOf;
  std::vector<std::vector<NodeId>> m_groups;
  std::vector<std::string> m_groupRule;
  std::vector<char> m_inMatch;
  std::vector<int> m_seen;
  int m_epoch = 0;
  int m_rejected = 0;
  std::vector<char> m_isGraphOutput;  // by value id
  // Every edge goes from a lower node id to a higher one (the verifier's order);
  // convex() relies on it to stop early, and searches everything otherwise.
  bool m_topological = true;
  // Spans [first, last] node id of the groups formed, merged where they touch.
  std::map<NodeId, NodeId> m_spans;

  const FusionRule* m_rule = nullptr;
  std::vector<int> m_order;
  std::vector<NodeId> m_assign;
  std::vector<bool> m_included;
  ir::NodeRole m_role{};
  int64_t m_steps = 0;  // extend() calls from the current anchor
  std::vector<int64_t> m_walked;  // per pattern node: the last effParents/effChildren walk that visited it
  int64_t m_walk = 0;
  // Per depth of extend(): its parents, children and candidates (reused, not reallocated).
  std::vector<std::array<std::vector<NodeId>, 3>> m_scratch;

  // Anchor first (the first required node), then always a node adjacent to the processed ones.
  static std::vector<int> processingOrder(const FusionRule& rule) {
    size_t n = rule.nodes.size();
    std::vector<int> order;
    std::vector<bool> done(n, false);
    for (size_t i = 0; i < n; ++i)
      if (rule.nodes[i].required) {
        order.push_back(static_cast<int>(i));
        done[i] = true;
        break;
      }
    while (order.size() < n) {
      size_t pick = n;
      for (size_t i = 0; i < n && pick == n; ++i) {
        if (done[i]) continue;
        for (int p : rule.nodes[i].parents) pick = done[static_cast<size_t>(p)] ? i : pick;
        for (int c : rule.nodes[i].children) pick = done[static_cast<size_t>(c)] ? i : pick;
      }
      if (pick == n)  // a disconnected pattern part: matched on its own anchor-less terms (rare)
        for (size_t i = 0; i < n && pick == n; ++i) pick = done[i] ? pick : i;
      done[pick] = true;
      order.push_back(static_cast<int>(pick));
    }
    return order;
  }

  bool feeds(NodeId a, NodeId b) const {
    const ir::Node& nb = m_g.node(b);
    for (ir::ValueId out : m_g.node(a).outputs)
      if (std::find(nb.inputs.begin(), nb.inputs.end(), out) != nb.inputs.end()) return true;
    return false;
  }

  // Assigned pattern neighbours, looking through skipped optional nodes. Each
  // pattern node is visited once per walk: a lattice of skipped optional nodes
  // has exponentially many paths but only as many nodes as the pattern.
  void effParents(int p, std::vector<NodeId>& out) {
    ++m_walk;
    collectAssigned(p, true, out);
  }
  void effChildren(int p, std::vector<NodeId>& out) {
    ++m_walk;
    collectAssigned(p, false, out);
  }
  void collectAssigned(int p, bool up, std::vector<NodeId>& out) {
    const PatternNode& pn = m_rule->nodes[static_cast<size_t>(p)];
    for (int q : up ? pn.parents : pn.children) {
      int64_t& walked = m_walked[static_cast<size_t>(q)];
      if (walked == m_walk) continue;
      walked = m_walk;
      NodeId a = m_assign[static_cast<size_t>(q)];
      if (a >= 0) out.push_back(a);
      else if (a == kSkipped) collectAssigned(q, up, out);
    }
  }

  // Takes node n for pattern node p if an option matches (the first matching option wins).
  bool tryAssign(int p, const PatternNode& pn, NodeId n) {
    if (m_inMatch[static_cast<size_t>(n)]) return false;
    const ir::Node& node = m_g.node(n);
    for (const PatternOption& opt : pn.options) {
      if (std::find(opt.ops.begin(), opt.ops.end(), node.op) == opt.ops.end()) continue;
      if (opt.included && (m_groupOf[static_cast<size_t>(n)] >= 0 || node.role != m_role)) return false;
      m_assign[static_cast<size_t>(p)] = n;
      m_included[static_cast<size_t>(p)] = opt.included;
      m_inMatch[static_cast<size_t>(n)] = 1;
      return true;
    }
    return false;
  }

  void unassign(int p) {
    NodeId n = m_assign[static_cast<size_t>(p)];
    if (n >= 0) m_inMatch[static_cast<size_t>(n)] = 0;
    m_assign[static_cast<size_t>(p)] = kUnset;
    m_included[static_cast<size_t>(p)] = false;
  }

  bool extend(size_t k) {
    if (++m_steps > m_stepBudget) return false;  // out of budget: no match from this anchor
    if (k == m_order.size()) return accept();
    int p = m_order[k];
    const PatternNode& pn = m_rule->nodes[static_cast<size_t>(p)];
    auto& [parents, children, candidates] = m_scratch[k];
    parents.clear();
    children.clear();
    candidates.clear();
    effParents(p, parents);
    effChildren(p, children);
    if (!parents.empty()) {
      for (ir::ValueId out : m_g.node(parents.front()).outputs)
        for (NodeId u : m_users[static_cast<size_t>(out)]) candidates.push_back(u);
    } else if (!children.empty()) {
      for (ir::ValueId in : m_g.node(children.front()).inputs)
        if (NodeId prod = m_g.value(in).producer; prod != ir::kNoNode) candidates.push_back(prod);
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (NodeId n : candidates) {
      bool linked = std::all_of(parents.begin(), parents.end(), [&](NodeId q) { return feeds(q, n); }) &&
                    std::all_of(children.begin(), children.end(), [&](NodeId c) { return feeds(n, c); });
      if (!linked || !tryAssign(p, pn, n)) continue;
      if (extend(k + 1)) return true;
      unassign(p);
    }
    if (!pn.required) {
      // Absent: its assigned neighbours must then be wired to each other directly.
      for (NodeId q : parents)
        for (NodeId c : children)
          if (!feeds(q, c)) return false;
      m_assign[static_cast<size_t>(p)] = kSkipped;
      if (extend(k + 1)) return true;
      m_assign[static_cast<size_t>(p)] = kUnset;
    }
    return false;
  }

  bool accept() {
    std::vector<NodeId> fused;
    for (size_t p = 0; p < m_assign.size(); ++p)
      if (m_assign[p] >= 0 && m_included[p]) fused.push_back(m_assign[p]);
    if (fused.empty()) return false;
    std::sort(fused.begin(), fused.end());
    const Heuristic& h = m_rule->heuristic;
    if (h.maxNodes > 0 && static_cast<int>(fused.size()) > h.maxNodes) return false;
    if (h.sameScope)
      for (NodeId n : fused)
        if (m_g.node(n).scope != m_g.node(fused.front()).scope) return false;
    if (h.noExternalUses)
      for (NodeId n : fused) {
        if (n == fused.back()) continue;
        for (ir::ValueId out : m_g.node(n).outputs) {
          if (m_isGraphOutput[static_cast<size_t>(out)]) return false;
          for (NodeId u : m_users[static_cast<size_t>(out)])
            if (!std::binary_search(fused.begin(), fused.end(), u)) return false;
        }
      }
    if (!convex(fused)) {
      ++m_rejected;
      return false;
    }
    int id = static_cast<int>(m_groups.size());
    for (NodeId n : fused) m_groupOf[static_cast<size_t>(n)] = id;
    addSpan(fused.front(), fused.back());
    m_groups.push_back(std::move(fused));
    m_groupRule.push_back(m_rule->name);
    return true;
  }

  // No path from the match back into it through other nodes, where reaching one
  // member of an existing group reaches all of it (groups run as units).
  //
  // Edges only go up in node id, so a path can come back down only by jumping
  // within a group. From `limit` (the match's last node, extended through the
  // spans of groups reaching across it) every group lies wholly below or wholly
  // above: nodes past it never lead back into the match and are not searched.
  bool convex(const std::vector<NodeId>& fused) {
    ++m_epoch;
    const NodeId limit = m_topological ? reachLimit(fused.back()) : std::numeric_limits<NodeId>::max();
    auto inFused = [&](NodeId n) { return std::binary_search(fused.begin(), fused.end(), n); };
    std::vector<NodeId> stack;
    for (NodeId n : fused)  // edges inside the match are fine: start from the ones that leave it
      for (ir::ValueId out : m_g.node(n).outputs)
        for (NodeId u : m_users[static_cast<size_t>(out)])
          if (!inFused(u)) stack.push_back(u);
    while (!stack.empty()) {
      NodeId v = stack.back();
      stack.pop_back();
      if (v > limit || m_seen[static_cast<size_t>(v)] == m_epoch) continue;
      if (inFused(v)) return false;
      m_seen[static_cast<size_t>(v)] = m_epoch;
      for (ir::ValueId out : m_g.node(v).outputs)
        for (NodeId u : m_users[static_cast<size_t>(out)]) stack.push_back(u);
      if (int gi = m_groupOf[static_cast<size_t>(v)]; gi >= 0)
        for (NodeId m : m_groups[static_cast<size_t>(gi)]) stack.push_back(m);
    }
    return true;
  }

  void addSpan(NodeId first, NodeId last) {
    // Absorb every span touching [first, last] (one that starts at or before last
    // and ends at or after first).
    auto it = m_spans.upper_bound(last);
    while (it != m_spans.begin()) {
      auto prev = std::prev(it);
      if (prev->second < first) break;
      first = std::min(first, prev->first);
      last = std::max(last, prev->second);
      it = m_spans.erase(prev);
    }
    m_spans[first] = last;
  }

  // The highest node id a search from below `from` can come back down from: the
  // end of the merged span reaching past `from`, or `from` itself.
  NodeId reachLimit(NodeId from) const {
    auto it = m_spans.upper_bound(from);
    if (it == m_spans.begin()) return from;
    --it;
    return it->second > from ? it->second : from;
  }

  // Units (groups, then unmatched nodes) in a topological order that prefers graph order.
  std::vector<Subgraph> schedule() {
    std::vector<std::vector<NodeId>> units = m_groups;
    std::vector<std::string> rules = m_groupRule;
    std::vector<int> unitOf = m_groupOf;
    for (const ir::Node& n : m_g.nodes)
      if (unitOf[static_cast<size_t>(n.id)] < 0) {
        unitOf[static_cast<size_t>(n.id)] = static_cast<int>(units.size());
        units.push_back({n.id});
        rules.emplace_back();
      }
    size_t count = units.size();
    std::vector<std::vector<int>> succ(count);
    std::vector<int> indeg(count, 0);
    for (size_t u = 0; u < count; ++u) {
      std::vector<int> preds;
      for (NodeId n : units[u])
        for (ir::ValueId in : m_g.node(n).inputs)
          if (NodeId prod = m_g.value(in).producer; prod != ir::kNoNode) {
            int pu = unitOf[static_cast<size_t>(prod)];
            if (pu != static_cast<int>(u)) preds.push_back(pu);
          }
      std::sort(preds.begin(), preds.end());
      preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
      for (int p : preds) succ[static_cast<size_t>(p)].push_back(static_cast<int>(u));
      indeg[u] = static_cast<int>(preds.size());
    }
    using Item = std::pair<NodeId, int>;  // (first node, unit): graph order first
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (size_t u = 0; u < count; ++u)
      if (indeg[u] == 0) ready.push({units[u].front(), static_cast<int>(u)});
    std::vector<Subgraph> out;
    while (!ready.empty()) {
      int u = ready.top().second;
      ready.pop();
      const auto& nodes = units[static_cast<size_t>(u)];
      out.push_back({nodes, m_g.node(nodes.front()).scope, rules[static_cast<size_t>(u)], -1});
      for (int s : succ[static_cast<size_t>(u)])
        if (--indeg[static_cast<size_t>(s)] == 0) ready.push({units[static_cast<size_t>(s)].front(), s});
    }
    return out;  // convex groups make the unit graph acyclic, so every unit is scheduled
  }
};

}  // namespace

FusionResult fuseByRules(const ir::Graph& graph, const FusionRuleList& rules, int64_t matchStepsPerAnchor) {
  FusionResult result;
  Matcher m(graph, matchStepsPerAnchor);
  m.run(rules, result);
  return result;
}

}  // namespace dfc::partition
