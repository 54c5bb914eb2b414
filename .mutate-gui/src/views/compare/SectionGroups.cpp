#include "compare/SectionGroups.h"

#include <QCoreApplication>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>
#include <unordered_map>

#include "compare/CompareSummary.h"
#include "graph/GraphData.h"
#include "style/ColorIdentity.h"

namespace dfc::views {
namespace {

QString tr(const char* text, int n = -1) { return QCoreApplication::translate("SectionGroups", text, nullptr, n); }

// Disjoint sets over the sections of both sides (left first, then right).
class Components {
 public:
  explicit Components(size_t n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), size_t{0}); }
  size_t find(size_t x) {
    while (m_parent[x] != x) x = m_parent[x] = m_parent[m_parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { m_parent[find(a)] = find(b); }

 private:
  std::vector<size_t> m_parent;
};

// What one side's run measured: time per step by section id, and calls that name none.
struct SideMeasure {
  std::map<int, double> perSectionUs;
  double unattributedUs = 0;
  bool valid = false;
};

// "3 conv1" or "3" -> 3; -1 without a leading id.
int sectionIdOf(std::string_view key) {
  int id = -1;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
  return ec == std::errc() && end != key.data() ? id : -1;
}

SideMeasure measure(const pef::Pef& pef, const profile::CompactTrace* trace) {
  SideMeasure out;
  if (!trace) return out;
  const CompareSide side = summarizeSide(pef, trace);
  if (side.steps == 0) return out;
  out.valid = true;
  const double steps = static_cast<double>(side.steps);
  for (const auto& e : trace->events) {
    if (e.ph != 'X' || trace->threads[e.thread].tid != 0) continue;
    const int id = sectionIdOf(trace->string(e.section));
    if (id >= 0) out.perSectionUs[id] += e.dur / steps;
    else out.unattributedUs += e.dur / steps;
  }
  return out;
}

// Operator name -> the section holding it, for one side.
std::unordered_map<std::string, int> sectionOfOperator(const pef::Pef& pef) {
  std::unordered_map<std::string, int> out;
  for (const auto& s : pef.plan.sections)
    for (ir::NodeId n : s.nodes) out.emplace(pef.graph.nodes[static_cast<size_t>(n)].name, s.id);
  return out;
}

SectionChange classify(const SectionGroup& g) {
  const size_t l = g.sections[0].size(), r = g.sections[1].size();
  if (r == 0) return SectionChange::OnlyLeft;
  if (l == 0) return SectionChange::OnlyRight;
  if (l == 1 && r == 1) return SectionChange::Unchanged;
  if (r == 1) return SectionChange::Merged;
  if (l == 1) return SectionChange::Split;
  return SectionChange::Regrouped;
}

// "forward: h.0, h.1, ln_f, lm_head" from the operators of one side's sections.
QString describeHoldings(const pef::Pef& pef, const std::vector<int>& sections) {
  std::set<QString> roles;
  std::set<QString> scopes;
  for (int id : sections) {
    const auto& s = pef.plan.sections[static_cast<size_t>(id)];
    roles.insert(roleText(s.type));
    for (ir::NodeId n : s.nodes) {
      const std::string& scope = pef.graph.nodes[static_cast<size_t>(n)].scope;
      scopes.insert(QString::fromStdString(scope.substr(0, scope.find('/'))));
    }
  }
  std::vector<QString> sorted(scopes.begin(), scopes.end());
  std::sort(sorted.begin(), sorted.end(), naturalLess);
  QStringList shown;
  for (const QString& scope : sorted) shown << (scope.isEmpty() ? tr("(top level)") : scope);
  if (shown.size() > 4) shown = shown.mid(0, 3) << tr("… %n more", static_cast<int>(shown.size() - 3));
  QStringList roleNames(roles.begin(), roles.end());
  return QStringLiteral("%1: %2").arg(roleNames.join(QLatin1Char('+')), shown.join(QStringLiteral(", ")));
}

QString sectionNames(const pef::Pef& pef, const std::vector<int>& sections) {
  if (sections.empty()) return {};
  auto name = [&pef](int id) { return QString::fromStdString(pef.plan.sections[static_cast<size_t>(id)].name); };
  if (sections.size() == 1) return name(sections.front());
  return tr("%n sections (%1 … %2)", static_cast<int>(sections.size()))
      .arg(name(sections.front()), name(sections.back()));
}

// The figures of one side of a group: calls and estimate from the schedule, measured from the run.
void sumSide(SectionGroup& g, int side, const pef::Pef& pef, const SideMeasure& measured) {
  const std::set<int> mine(g.sections[side].begin(), g.sections[side].end());
  for (int id : pef.plan.schedule)
    if (mine.count(id)) {
      ++g.calls[side];
      g.estUs[side] += pef.plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
    }
  for (int id : g.sections[side]) g.ops[side] += static_cast<int>(pef.plan.sections[static_cast<size_t>(id)].nodes.size());
  if (!measured.valid || g.sections[side].empty()) return;  // nothing of it ran on this side
  double us = 0;
  for (int id : g.sections[side])
    if (const auto it = measured.perSectionUs.find(id); it != measured.perSectionUs.end()) us += it->second;
  g.measuredUs[side] = us;
}

// Calls on the whole-run row that name no section: a group of their own on that side.
SectionGroup unattributed(int side, double us) {
  SectionGroup g;
  g.measuredUs[side] = us;
  g.change = side == 0 ? SectionChange::OnlyLeft : SectionChange::OnlyRight;
  g.holds = tr("calls that name no section");
  return g;
}

}  // namespace

QString sectionChangeName(SectionChange change) {
  switch (change) {
    case SectionChange::Unchanged: return tr("unchanged");
    case SectionChange::Merged: return tr("merged");
    case SectionChange::Split: return tr("split");
    case SectionChange::Regrouped: return tr("moved");
    case SectionChange::OnlyLeft: return tr("only left");
    case SectionChange::OnlyRight: return tr("only right");
  }
  return {};
}

QString sectionChangeKey(SectionChange change) {
  switch (change) {
    case SectionChange::Unchanged: return QStringLiteral("unchanged");
    case SectionChange::Merged: return QStringLiteral("merged");
    case SectionChange::Split: return QStringLiteral("split");
    case SectionChange::Regrouped: return QStringLiteral("moved");
    case SectionChange::OnlyLeft: return QStringLiteral("only-left");
    case SectionChange::OnlyRight: return QStringLiteral("only-right");
  }
  return {};
}

int SectionMatch::groupOf(int side, int section) const {
  if (side < 0 || side > 1) return -1;
  const auto it = groupOfSection[side].find(section);
  return it == groupOfSection[side].end() ? -1 : it->second;
}

SectionMatch matchSections(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace) {
  const pef::Pef* pefs[2] = {&left, &right};
  const size_t leftCount = left.plan.sections.size();
  Components components(leftCount + right.plan.sections.size());
  const auto rightSectionOf = sectionOfOperator(right);
  for (const auto& s : left.plan.sections)
    for (ir::NodeId n : s.nodes)
      if (const auto it = rightSectionOf.find(left.graph.nodes[static_cast<size_t>(n)].name); it != rightSectionOf.end())
        components.join(static_cast<size_t>(s.id), leftCount + static_cast<size_t>(it->second));

  SectionMatch match;
  std::map<size_t, size_t> groupOfRoot;  // in order of the first left section, then the right's
  for (size_t i = 0; i < leftCount + right.plan.sections.size(); ++i) {
    const auto [it, added] = groupOfRoot.try_emplace(components.find(i), match.groups.size());
    if (added) match.groups.emplace_back();
    const int side = i < leftCount ? 0 : 1;
    match.groups[it->second].sections[side].push_back(static_cast<int>(side == 0 ? i : i - leftCount));
  }
  const SideMeasure measured[2] = {measure(left, leftTrace), measure(right, rightTrace)};
  for (SectionGroup& g : match.groups) {
    g.change = classify(g);
    for (int side = 0; side < 2; ++side) {
      sumSide(g, side, *pefs[side], measured[side]);
      g.names[side] = sectionNames(*pefs[side], g.sections[side]);
    }
    g.holds = describeHoldings(g.sections[0].empty() ? right : left, g.sections[0].empty() ? g.sections[1] : g.sections[0]);
  }
  for (int side = 0; side < 2; ++side)
    if (measured[side].valid && measured[side].unattributedUs > 0)
      match.groups.push_back(unattributed(side, measured[side].unattributedUs));
  std::stable_sort(match.groups.begin(), match.groups.end(), [](const SectionGroup& a, const SectionGroup& b) {
    return std::abs(a.deltaUs()) > std::abs(b.deltaUs());
  });
  for (size_t g = 0; g < match.groups.size(); ++g)
    for (int side = 0; side < 2; ++side) {
      for (int id : match.groups[g].sections[side]) match.groupOfSection[side][id] = static_cast<int>(g);
      match.totalEstUs[side] += match.groups[g].estUs[side];
      if (measured[side].valid) match.totalMeasuredUs[side] = match.totalMeasuredUs[side].value_or(0) + match.groups[g].measuredUs[side].value_or(0);
    }
  return match;
}

}  // namespace dfc::views
