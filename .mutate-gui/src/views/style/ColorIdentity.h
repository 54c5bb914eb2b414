#pragma once
// One colour per hypersection, hyperfunction and section for every view of a
// document (graph, timeline, Gantt strip, schedule table, compare): each key
// gets a palette index once, in a fixed order, and every view asks here. Keys
// past the palette share the "other" colour. Hypersections are keyed by
// their unique name, which the plan and the trace's slices have in common.
#include <QColor>
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::views {

// By cost (the default where a run or an estimate exists): the palette goes
// to the costliest hypersections, in cost order, and the rest are grey. By
// identity: hypersections in id order, whatever they cost.
enum class ColorScheme { Cost, Identity };

class ColorIdentity {
 public:
  // Hypersections in id order, top-level hyperfunctions (of the sections,
  // and of the graph's ops when given) in natural order ("h.2" before
  // "h.10"), sections by id.
  static ColorIdentity fromPlan(const partition::Plan& plan, const ir::Graph* graph = nullptr);
  // The hypersections of `costOrder` (costliest first, with their time per
  // step) take the palette in that order; the plan's others follow (grey
  // once the palette is used up). basis: what the cost is ("measured time per step").
  // what: what the keys are, plural ("hypersections"; "slice names" for a trace alone).
  static ColorIdentity byCost(const partition::Plan& plan, const ir::Graph* graph,
                              const std::vector<std::pair<QString, double>>& costOrder, const QString& basis,
                              const QString& what = {});
  // Adds what `plan` has that is not known yet (compare: the second side).
  void addPlan(const partition::Plan& plan, const ir::Graph* graph = nullptr);
  // Keys of a trace without a plan (slice names, most time first).
  void addHypersection(const QString& name);
  // `name` takes the colour of `key` (compare: hs34_matmul and hs39_matmul are one kernel).
  void aliasHypersection(const QString& name, const QString& key);
  void addHyperfunction(const QString& scope);

  bool knowsHypersection(const QString& name) const { return hypersectionIndex(name) >= 0; }
  int hypersectionIndex(const QString& name) const;  // -1: unknown
  QColor hypersection(const QString& name) const;    // "other" when unknown or past the palette
  QColor hyperfunction(const QString& scope) const;  // by its top-level part; "" = none
  QColor section(int id) const;                      // -1 = none
  int hypersectionCount() const { return static_cast<int>(m_hypersections.size()); }

  ColorScheme scheme() const { return m_scheme; }
  // By cost: the time per step a hypersection's colour stands for (empty: not ranked).
  std::optional<double> costOf(const QString& hypersection) const;
  const QString& costBasis() const { return m_costBasis; }
  // For legends: "Colour by cost: the 24 costliest of 92 hypersections (measured time per step); the rest grey".
  QString schemeNote() const;

 private:
  std::map<QString, int> m_hypersections;
  std::map<QString, QString> m_hypersectionAliases;
  std::map<QString, int> m_hyperfunctions;
  int m_sections = 0;
  ColorScheme m_scheme = ColorScheme::Identity;
  std::map<QString, double> m_costs;
  QString m_costBasis;
  QString m_costWhat;
};

using SharedColorIdentity = std::shared_ptr<const ColorIdentity>;

// "h.2" < "h.10": runs of digits compare as numbers, the rest as text.
bool naturalLess(const QString& a, const QString& b);

}  // namespace dfc::views
