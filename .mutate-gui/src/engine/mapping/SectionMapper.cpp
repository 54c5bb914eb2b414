#include "mapping/SectionMapper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "arch/AttentionCost.h"
#include "arch/OperatorTiling.h"
#include "mapping/Scheduler.h"
#include "partition/CompilerMode.h"

namespace dfc::mapping {
namespace {

// The hyperfunction a section belongs to: the deepest scope holding all its
// nodes ("h.3" for a whole layer, "h.3/attn" for its attention, "" for the top).
std::string commonScope(const ir::Graph& g, const std::vector<ir::NodeId>& nodes) {
  std::string_view common = g.node(nodes.front()).scope;
  for (ir::NodeId id : nodes) {
    std::string_view s = g.node(id).scope;
    size_t n = 0;
    while (n < common.size() && n < s.size() && common[n] == s[n]) ++n;
    // Cut back to a whole path component: "h.1" and "h.10" share "h.1" as text, not as scope.
    bool whole = n == common.size() && (n == s.size() || s[n] == '/');
    if (!whole) {
      size_t slash = common.substr(0, n + 1).rfind('/');
      n = slash == std::string_view::npos ? 0 : slash;
    }
    common = common.substr(0, n);
    if (common.empty()) break;
  }
  return std::string(common);
}

// Short readable name of a section: "s12_conv2d" (one op) or "s3_fc1" (a scope).
std::string sectionName(int id, const ir::Graph& g, const std::vector<ir::NodeId>& nodes, const std::string& scope) {
  const ir::Node& first = g.node(nodes.front());
  std::string what = nodes.size() == 1 ? std::string(ir::opName(first.op))
                                       : (scope.empty() ? std::string(ir::roleName(first.role)) : scope);
  for (char& c : what)
    if (c == '/') c = '.';
  return "s" + std::to_string(id) + "_" + what;
}

bool isParamUpdate(const ir::Node& n) { return std::string_view(ir::opName(n.op)).ends_with("_update"); }

// The --resources-scaling-factors value for the node's role (ir/Roles.def: scaleGroup).
double scaleFor(const MappingOptions& o, const ir::Node& n) {
  switch (ir::roleInfo(n.role).scale) {
    case ir::RoleScale::Forward: return o.forwardScale;
    case ir::RoleScale::Backward: return o.backwardScale;
    case ir::RoleScale::Optimizer:
      return !isParamUpdate(n) && o.gradNormScale > 0 ? o.gradNormScale : o.optimizerScale;
  }
  return 1.0;
}

std::string suggestScale(double needed) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", std::min(1.0, std::ceil(needed * 100) / 100));
  return buf;
}

// An attention chain the subgraph holds whole runs as one tiled operator
// (arch/AttentionCost.h): its PCUs go on its first node and none on the
// others, so the cut keeps it in one section. Its PMUs stay those of its ops
// one by one, which is what the lowering builds; since the lowering's combine
// trees follow the PCU shares a shared section gets, a chain is kept whole only
// with half the PMU budget to spare.
void keepAttentionWhole(const arch::CostModel& cost, const ir::Graph& g, const std::vector<ir::NodeId>& nodes,
                        const std::vector<std::vector<ir::NodeId>>& users,
                        const std::vector<std::optional<partition::OperatorTiling>>& tiling, int pcuBudget,
                        int pmuBudget, std::vector<std::pair<int, int>>& use) {
  for (const arch::TiledAttention& t : arch::tiledAttention(cost, g, nodes, users)) {
    std::vector<size_t> at;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (std::find(t.nodes.begin(), t.nodes.end(), nodes[i]) != t.nodes.end()) at.push_back(i);
    int pmus = 0;
    for (size_t i : at) pmus += use[i].second;
    const bool tiled = std::any_of(at.begin(), at.end(), [&](size_t i) { return tiling[i].has_value(); });
    if (tiled || t.cost.minPcus > pcuBudget || 2 * pmus > pmuBudget) continue;
    for (size_t i : at) use[i] = {0, 0};
    use[at.front()] = {std::min(t.cost.pcus, pcuBudget), pmus};
  }
}

struct Mapper {
  const ir::Graph& g;
  const arch::CostModel& cost;
  std::vector<std::vector<ir::NodeId>> users;  // of every value, for the sections' estimates
  partition::Plan plan;
  // (subgraph hypersection id, piece) -> plan hypersection. Repeats of a subgraph
  // are cut identically, so their k-th pieces are instances of one hypersection.
  std::map<std::pair<int, int>, int> hypersectionOfSubgraphKey;

  const partition::SectionEstimate& addSection(std::vector<ir::NodeId> nodes, int subgraphHypersection, int pcuBudget,
                                               partition::CutReason cut,
                                               const partition::SectionEstimate* known = nullptr, int piece = 0,
                                               std::vector<partition::OperatorTiling> tiling = {}) {
    partition::Section s;
    s.cut = std::move(cut);
    s.id = static_cast<int>(plan.sections.size());
    s.nodes = std::move(nodes);
    const ir::Node& first = g.node(s.nodes.front());
    s.type = first.role;
    s.hyperfunction = commonScope(g, s.nodes);
    s.name = sectionName(s.id, g, s.nodes, s.hyperfunction);
    s.estimate = known ? *known : cost.sectionEstimate(g, s.nodes, pcuBudget, users);
    if (!known)
      for (const partition::OperatorTiling& t : tiling) arch::applyTiling(cost, g, t, s.estimate);
    s.tiling = std::move(tiling);
    const std::pair<int, int> key{subgraphHypersection, piece};
    auto it = subgraphHypersection >= 0 ? hypersectionOfSubgraphKey.find(key) : hypersectionOfSubgraphKey.end();
    if (it == hypersectionOfSubgraphKey.end()) {
      int id = static_cast<int>(plan.hypersections.size());
      plan.hypersections.push_back({id, "hs" + std::to_string(id) + "_" + s.name.substr(s.name.find('_') + 1), {}});
      if (subgraphHypersection >= 0) hypersectionOfSubgraphKey[key] = id;
      s.hypersection = id;
    } else {
      s.hypersection = it->second;
    }
    plan.hypersections[static_cast<size_t>(s.hypersection)].sections.push_back(s.id);
    plan.sections.push_back(std::move(s));
    return plan.sections.back().estimate;
  }
};

// The units one section of a subgraph may use (its role's scaled share of the chips).
struct Budget {
  int pcus = 0;
  int pmus = 0;
};

// A repeat of a mapped hypersection: same cut, same estimates (its nodes by position).
void reuseCachedCut(Mapper& m, const partition::Subgraph& sub, const partition::MappedSubgraph& hit, int pcuBudget) {
  int piece = 0;
  for (const auto& ms : hit.sections) {
    partition::CutReason cut = piece == 0 ? sub.cut : ms.cut;
    std::vector<ir::NodeId> nodes;
    for (int p : ms.positions) nodes.push_back(sub.nodes[static_cast<size_t>(p)]);
    std::vector<partition::OperatorTiling> tiling = ms.tiling;
    for (auto& t : tiling) t.node = sub.nodes[static_cast<size_t>(t.node)];
    m.addSection(std::move(nodes), sub.hypersection, pcuBudget, std::move(cut), &ms.estimate, piece++,
                 std::move(tiling));
  }
}

Error operatorDoesNotFit(const arch::ArchSpec& a, const ir::Node& n, const arch::OpCost& c, Budget budget) {
  bool pcu = c.minPcus > budget.pcus;
  int need = pcu ? c.minPcus : c.pmus;
  int total = pcu ? a.totalPcus() : a.totalPmus();
  std::string remedy = need <= total ? "raise the " + std::string(ir::roleName(n.role)) +
                                           " resource scaling factor to at least " +
                                           suggestScale(static_cast<double>(need) / total) + ", or use "
                                     : "use ";
  return makeError("operator '" + n.name + "' (" + std::string(ir::opName(n.op)) + ") needs " + std::to_string(need) +
                   (pcu ? " PCUs" : " PMUs") + " but a section may use " +
                   std::to_string(pcu ? budget.pcus : budget.pmus) + " on " + a.name + " (" + std::to_string(a.chips) +
                   " chip(s)); " + remedy + "more chips (--n-chips) or a larger arch");
}

// Per node of a subgraph: the PCUs it takes in a section (an op wanting more
// runs slower on what there is) and its PMUs. An op that does not fit is tiled:
// a section of its own, run in passes.
struct NodeUse {
  std::vector<std::pair<int, int>> units;  // (PCUs, PMUs)
  std::vector<std::optional<partition::OperatorTiling>> tiling;
};

Expected<NodeUse> measureNodes(const Mapper& m, const partition::Subgraph& sub, Budget budget) {
  const arch::ArchSpec& a = m.cost.arch();
  NodeUse u;
  u.tiling.resize(sub.nodes.size());
  u.units.reserve(sub.nodes.size());
  // One operator's resident data stays on one chip: a larger one (a vocabulary-sized table or head) is
  // tiled and streamed from HBM/DDR pass by pass, not spread over chips joined only by their links.
  const int opPmuBudget = std::min(budget.pmus, std::max(1, a.tiles * a.pmusPerTile));
  for (ir::NodeId id : sub.nodes) {
    const ir::Node& n = m.g.node(id);
    arch::OpCost c = m.cost.opCost(m.g, n);
    if (c.minPcus <= budget.pcus && c.pmus > opPmuBudget) {
      u.tiling[u.units.size()] = arch::planOperatorTiling(m.cost, m.g, n, opPmuBudget, budget.pcus);
      if (u.tiling[u.units.size()]) {
        u.units.emplace_back(std::min(c.pcus, budget.pcus), opPmuBudget);
        continue;
      }
    }
    if (c.minPcus > budget.pcus || c.pmus > budget.pmus) return operatorDoesNotFit(a, n, c, budget);
    u.units.emplace_back(std::min(c.pcus, budget.pcus), c.pmus);
  }
  keepAttentionWhole(m.cost, m.g, sub.nodes, m.users, u.tiling, budget.pcus, budget.pmus, u.units);
  return u;
}

// Cuts one subgraph into sections in node order: a section closes when the
// next node would pass the budget or --max-section-ops, before an attention
// block that fits a section alone (nlp mode), and around a tiled operator.
class SubgraphCutter {
 public:
  SubgraphCutter(Mapper& m, const partition::Subgraph& sub, const NodeUse& use, Budget budget,
                 const MappingOptions& options, partition::MappedSubgraph* cache)
      : m_m(m),
        m_sub(sub),
        m_use(use),
        m_budget(budget),
        m_options(options),
        m_cache(cache),
        // A piece closed mid-way means the subgraph is split.
        m_splitHypersection(options.shareSplitPieces ? sub.hypersection : -1) {}

  void run() {
    for (size_t i = 0; i < m_sub.nodes.size(); ++i) {
      if (m_use.tiling[i]) {
        if (!m_current.empty()) closeSection(tiledCut(i));
        take(i);
        closeSection(afterTiledCut(i), {*m_use.tiling[i]});
        continue;
      }
      if (attentionBlockStartsAt(i) && !m_current.empty() && blockFitsOnlyAlone(i)) closeSection(attentionCut(i));
      if (!m_current.empty())
        if (std::optional<partition::CutReason> why = budgetCut(i)) closeSection(std::move(*why));
      take(i);
    }
    // Repeats of the subgraph share its hypersection(s), one per piece.
    if (!m_current.empty()) {
      size_t count = m_current.size();
      m_m.addSection(std::move(m_current), m_piece == 0 ? m_sub.hypersection : m_splitHypersection, m_budget.pcus,
                     std::move(m_cut), nullptr, m_piece);
      record(count, m_m.plan.sections.back());
    }
  }

 private:
  void take(size_t i) {
    m_current.push_back(m_sub.nodes[i]);
    ++m_position;
    m_pcus += m_use.units[i].first;
    m_pmus += m_use.units[i].second;
  }

  // Closes the open section; `next` is why the following one starts apart from it.
  void closeSection(partition::CutReason next, std::vector<partition::OperatorTiling> tiled = {}) {
    size_t count = m_current.size();
    m_m.addSection(std::move(m_current), m_splitHypersection, m_budget.pcus, std::move(m_cut), nullptr, m_piece++,
                   std::move(tiled));
    record(count, m_m.plan.sections.back());
    m_current.clear();
    m_cut = std::move(next);
    m_pcus = m_pmus = 0;
  }

  std::string opText(size_t i) const {
    const ir::Node& n = m_m.g.node(m_sub.nodes[i]);
    return "'" + n.name + "' (" + std::string(ir::opName(n.op)) + ")";
  }

  // The open section cannot take node `i`: why, with the figures; nullopt: it can.
  std::optional<partition::CutReason> budgetCut(size_t i) const {
    const auto [opPcus, opPmus] = m_use.units[i];
    const int cap = m_options.maxSectionOps;
    if (cap > 0 && m_current.size() >= static_cast<size_t>(cap))
      return partition::CutReason{partition::CutKind::SectionOps,
                                  "mapping.max_section_ops " + std::to_string(cap) + " reached before " + opText(i),
                                  static_cast<int64_t>(m_current.size()), 1, cap};
    auto over = [&](partition::CutKind kind, const char* unit, int used, int adding, int limit) {
      return partition::CutReason{kind,
                                  std::to_string(used) + " " + unit + " open + " + std::to_string(adding) + " for " +
                                      opText(i) + " > budget " + std::to_string(limit),
                                  used, adding, limit};
    };
    if (m_pcus + opPcus > m_budget.pcus)
      return over(partition::CutKind::PcuBudget, "PCUs", m_pcus, opPcus, m_budget.pcus);
    if (m_pmus + opPmus > m_budget.pmus)
      return over(partition::CutKind::PmuBudget, "PMUs", m_pmus, opPmus, m_budget.pmus);
    return std::nullopt;
  }

  partition::CutReason tiledCut(size_t i) const {
    const partition::OperatorTiling& t = *m_use.tiling[i];
    const arch::OpCost c = m_m.cost.opCost(m_m.g, m_m.g.node(m_sub.nodes[i]));
    return {partition::CutKind::TiledOperator,
            opText(i) + " needs " + std::to_string(c.pmus) + " PMUs > " + std::to_string(m_use.units[i].second) +
                " an operator may hold: tiled by " + t.dim + " in " + std::to_string(t.passes) + " passes",
            0, c.pmus, m_use.units[i].second};
  }

  partition::CutReason afterTiledCut(size_t i) const {
    return {partition::CutKind::AfterTiled, "after tiled " + opText(i) + ", which runs alone in " +
                                                std::to_string(m_use.tiling[i]->passes) + " passes"};
  }

  partition::CutReason attentionCut(size_t i) const {
    return {partition::CutKind::AttentionBlock,
            "attention block '" + std::string(blockOf(i)) + "' fits a section alone, not beside the open " +
                std::to_string(m_pcus) + " PCUs / " + std::to_string(m_pmus) + " PMUs",
            m_pcus, 0, m_budget.pcus};
  }

  // The last `count` nodes handled form `section`: kept for repeats of the subgraph.
  void record(size_t count, const partition::Section& section) {
    if (!m_cache) return;
    partition::MappedSection ms{{}, section.estimate, section.tiling, section.cut};
    for (size_t p = m_position - count; p < m_position; ++p) ms.positions.push_back(static_cast<int>(p));
    for (auto& t : ms.tiling)  // by position in the subgraph: a tiled operator is a section of its own
      t.node = static_cast<ir::NodeId>(m_position - 1);
    m_cache->sections.push_back(std::move(ms));
  }

  std::string_view blockOf(size_t i) const { return partition::attentionScope(m_m.g.node(m_sub.nodes[i]).scope); }

  bool attentionBlockStartsAt(size_t i) const {
    if (!m_options.keepAttentionBlocks) return false;
    std::string_view block = blockOf(i);
    return !block.empty() && (i == 0 || blockOf(i - 1) != block);
  }

  // The block starting at `i` fits a section by itself but not beside what is open.
  bool blockFitsOnlyAlone(size_t i) const {
    const std::string_view block = blockOf(i);
    int blockPcus = 0, blockPmus = 0;
    for (size_t j = i; j < m_sub.nodes.size() && blockOf(j) == block; ++j) {
      blockPcus += m_use.units[j].first;
      blockPmus += m_use.units[j].second;
    }
    bool fitsAlone = blockPcus <= m_budget.pcus && blockPmus <= m_budget.pmus;
    return fitsAlone && (m_pcus + blockPcus > m_budget.pcus || m_pmus + blockPmus > m_budget.pmus);
  }

  Mapper& m_m;
  const partition::Subgraph& m_sub;
  const NodeUse& m_use;
  const Budget m_budget;
  const MappingOptions& m_options;
  partition::MappedSubgraph* m_cache;  // null: the subgraph's cut is not cached
  const int m_splitHypersection;
  std::vector<ir::NodeId> m_current;
  int m_piece = 0;        // sections cut from the subgraph so far
  size_t m_position = 0;  // nodes of the subgraph handled so far
  int m_pcus = 0, m_pmus = 0;
  partition::CutReason m_cut = m_sub.cut;  // why the open section starts apart from the one before
};

Status mapSubgraph(Mapper& m, const partition::Subgraph& sub, const MappingOptions& options) {
  const arch::ArchSpec& a = m.cost.arch();
  const ir::Node& first = m.g.node(sub.nodes.front());
  double scale = scaleFor(options, first);
  if (!(scale > 0 && scale <= 1)) return makeError("resource scaling factors must be in (0, 1]");
  const Budget budget{sectionPcuBudget(a, options, first),
                      std::max(1, static_cast<int>(std::floor(a.totalPmus() * scale)))};
  bool cacheable = options.cache && sub.hypersection >= 0;
  if (const partition::MappedSubgraph* hit = cacheable ? options.cache->find(sub.hypersection) : nullptr) {
    reuseCachedCut(m, sub, *hit, budget.pcus);
    return {};
  }
  auto mapStart = std::chrono::steady_clock::now();
  auto use = measureNodes(m, sub, budget);
  if (!use) return use.error();
  partition::MappedSubgraph mapped;
  SubgraphCutter(m, sub, *use, budget, options, cacheable ? &mapped : nullptr).run();
  if (cacheable)
    options.cache->insert(
        sub.hypersection, std::move(mapped),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mapStart).count());
  return {};
}

}  // namespace

Expected<partition::Plan> mapSections(const ir::Graph& g, const std::vector<partition::Subgraph>& subgraphs,
                                      const arch::CostModel& cost, partition::OptLevel level,
                                      const MappingOptions& options) {
  Mapper m{g, cost, g.computeUsers(), {}, {}};
  m.plan.level = level;
  for (const auto& sub : subgraphs)
    if (!sub.nodes.empty()) DFC_TRY(mapSubgraph(m, sub, options));
  auto schedule = scheduleSections(g, m.plan.sections);
  if (!schedule) return schedule.error();
  m.plan.schedule = std::move(*schedule);
  return std::move(m.plan);
}

int sectionPcuBudget(const arch::ArchSpec& a, const MappingOptions& options, const ir::Node& first) {
  const int scaled = std::max(1, static_cast<int>(std::floor(a.totalPcus() * scaleFor(options, first))));
  return options.maxSectionPcus > 0 ? std::min(scaled, options.maxSectionPcus) : scaled;
}

int sectionPmuBudget(const arch::ArchSpec& a, const MappingOptions& options, const ir::Node& first) {
  return std::max(1, static_cast<int>(std::floor(a.totalPmus() * scaleFor(options, first))));
}

Expected<MappingOptions> parseScalingFactors(const std::vector<std::string>& values) {
  if (values.size() != 3 && values.size() != 4)
    return makeError("--resources-scaling-factors takes 3 values (forward backward optimizer) or 4 (forward backward "
                     "gradient-normalization optimizer), got " + std::to_string(values.size()));
  std::vector<double> f;
  for (const std::string& v : values) {
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(x > 0 && x <= 1))
      return makeError("--resources-scaling-factors: '" + v + "' is not a number in (0, 1]");
    f.push_back(x);
  }
  MappingOptions o;
  o.forwardScale = f[0];
  o.backwardScale = f[1];
  if (f.size() == 4) {
    o.gradNormScale = f[2];
    o.optimizerScale = f[3];
  } else {
    o.optimizerScale = f[2];
  }
  return o;
}

}  // namespace dfc::mapping
