#include "style/ColorIdentity.h"

#include <QCoreApplication>
#include <algorithm>
#include <set>

#include "style/Palette.h"

namespace dfc::views {
namespace {

QString topLevel(const QString& scope) { return scope.section(QLatin1Char('/'), 0, 0); }

}  // namespace

bool naturalLess(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      qsizetype ei = i, ej = j;
      while (ei < a.size() && a[ei].isDigit()) ++ei;
      while (ej < b.size() && b[ej].isDigit()) ++ej;
      // By value without overflow: skip leading zeros, then compare length, then digits.
      qsizetype si = i, sj = j;
      while (si + 1 < ei && a[si] == QLatin1Char('0')) ++si;
      while (sj + 1 < ej && b[sj] == QLatin1Char('0')) ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int digits = QStringView(a).mid(si, ei - si).compare(QStringView(b).mid(sj, ej - sj));
      if (digits != 0) return digits < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

ColorIdentity ColorIdentity::fromPlan(const partition::Plan& plan, const ir::Graph* graph) {
  ColorIdentity identity;
  identity.addPlan(plan, graph);
  return identity;
}

ColorIdentity ColorIdentity::byCost(const partition::Plan& plan, const ir::Graph* graph,
                                    const std::vector<std::pair<QString, double>>& costOrder, const QString& basis,
                                    const QString& what) {
  ColorIdentity identity;
  identity.m_scheme = ColorScheme::Cost;
  identity.m_costBasis = basis;
  identity.m_costWhat = what.isEmpty() ? QCoreApplication::translate("ColorIdentity", "hypersections") : what;
  for (const auto& [name, us] : costOrder) {
    identity.addHypersection(name);
    identity.m_costs[name] = us;
  }
  identity.addPlan(plan, graph);
  return identity;
}

std::optional<double> ColorIdentity::costOf(const QString& hypersection) const {
  const auto alias = m_hypersectionAliases.find(hypersection);
  const auto it = m_costs.find(alias == m_hypersectionAliases.end() ? hypersection : alias->second);
  return it == m_costs.end() ? std::nullopt : std::optional<double>(it->second);
}

QString ColorIdentity::schemeNote() const {
  if (m_scheme != ColorScheme::Cost) return {};
  const int ranked = static_cast<int>(m_costs.size());
  if (ranked <= categoricalCount())
    return QCoreApplication::translate("ColorIdentity", "Colour by cost: %1 in order of %2, costliest first")
        .arg(m_costWhat, m_costBasis);
  return QCoreApplication::translate("ColorIdentity", "Colour by cost: the %1 costliest of %2 %3 (%4) in colour, the rest grey")
      .arg(categoricalCount())
      .arg(ranked)
      .arg(m_costWhat, m_costBasis);
}

void ColorIdentity::addPlan(const partition::Plan& plan, const ir::Graph* graph) {
  for (const auto& hs : plan.hypersections) addHypersection(QString::fromStdString(hs.name));
  std::set<QString> unique;
  for (const auto& s : plan.sections)
    if (!s.hyperfunction.empty()) unique.insert(topLevel(QString::fromStdString(s.hyperfunction)));
  if (graph)
    for (const auto& node : graph->nodes)
      if (!node.scope.empty()) unique.insert(topLevel(QString::fromStdString(node.scope)));
  std::vector<QString> scopes(unique.begin(), unique.end());
  std::sort(scopes.begin(), scopes.end(), naturalLess);
  for (const QString& scope : scopes) addHyperfunction(scope);
  m_sections = std::max(m_sections, static_cast<int>(plan.sections.size()));
}

void ColorIdentity::addHypersection(const QString& name) {
  if (m_hypersectionAliases.count(name)) return;
  m_hypersections.try_emplace(name, static_cast<int>(m_hypersections.size()));
}

void ColorIdentity::aliasHypersection(const QString& name, const QString& key) {
  if (name == key) return;
  addHypersection(key);
  m_hypersectionAliases[name] = key;
}

void ColorIdentity::addHyperfunction(const QString& scope) {
  m_hyperfunctions.try_emplace(topLevel(scope), static_cast<int>(m_hyperfunctions.size()));
}

int ColorIdentity::hypersectionIndex(const QString& name) const {
  const auto alias = m_hypersectionAliases.find(name);
  const auto it = m_hypersections.find(alias == m_hypersectionAliases.end() ? name : alias->second);
  return it == m_hypersections.end() ? -1 : it->second;
}

QColor ColorIdentity::hypersection(const QString& name) const { return categoricalColor(hypersectionIndex(name)); }

QColor ColorIdentity::hyperfunction(const QString& scope) const {
  if (scope.isEmpty()) return QColor::fromRgb(kNoneColor);
  const auto it = m_hyperfunctions.find(topLevel(scope));
  return categoricalColor(it == m_hyperfunctions.end() ? -1 : it->second);
}

QColor ColorIdentity::section(int id) const { return id < 0 ? QColor::fromRgb(kNoneColor) : categoricalColor(id); }

}  // namespace dfc::views
