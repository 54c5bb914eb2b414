#include "graph/GraphStyle.h"

#include <QCoreApplication>
#include <QLinearGradient>
#include <algorithm>
#include <map>

#include "style/Palette.h"
#include "style/Units.h"

namespace dfc::views {
namespace {

// Op types are many and open-ended: a stable hash into the palette.
QColor opColor(const QString& op) {
  uint32_t hash = 2166136261u;  // FNV-1a: the same op keeps its colour across runs
  for (QChar c : op) hash = (hash ^ c.unicode()) * 16777619u;
  return categoricalColor(static_cast<int>(hash % static_cast<uint32_t>(categoricalCount())));
}

// The keys a node stands for with their op counts: one for a plain op, the
// contents of a folded one.
std::map<QString, int> keyOps(const GraphNode& node, GraphColorMode mode, const GraphOverlay* overlay) {
  if (overlayMetric(mode)) return {};  // a ramp has no keys to select by
  if (mode == GraphColorMode::Change) return overlay ? overlay->categoryCounts(node) : std::map<QString, int>{};
  if (node.kind == GraphNodeKind::Collapsed && byHypersection(mode) && !node.hypersectionOps.empty())
    return node.hypersectionOps;
  if (node.kind == GraphNodeKind::Collapsed && mode == GraphColorMode::Section && !node.sections.empty()) {
    std::map<QString, int> out;
    for (int s : node.sections) out[QString::number(s)] = 1;
    return out;
  }
  return {{colorKey(node, mode), std::max(1, node.opCount)}};
}

QColor keyColor(const QString& key, GraphColorMode mode, const ColorIdentity& identity, const GraphOverlay* overlay) {
  if (key.isEmpty()) return QColor::fromRgb(kNoneColor);
  switch (mode) {
    case GraphColorMode::Change: return overlay ? overlay->categoryColor(key) : QColor::fromRgb(kNoneColor);
    case GraphColorMode::OpType: return opColor(key);
    case GraphColorMode::Section: return identity.section(key.toInt());
    case GraphColorMode::Hypersection:
    case GraphColorMode::Cost: return identity.hypersection(key);
    case GraphColorMode::Hyperfunction: return identity.hyperfunction(key);
    default: return QColor::fromRgb(kNoneColor);
  }
}

std::vector<LegendEntry> colorBarEntries(OverlayMetric metric, const GraphOverlay* overlay) {
  std::vector<LegendEntry> out;
  if (!overlay || (!isUnitUse(metric) && !overlay->hasMeasured())) {
    out.push_back({QString(), QCoreApplication::translate("GraphView", "no recorded run: nothing to show"),
                   QColor(0xe6, 0xe6, 0xe6), 0});
    return out;
  }
  for (const auto& [value, color] : overlay->colorBar(metric, 7)) out.push_back({QString(), GraphOverlay::format(metric, value), color, 0});
  out.push_back({QString(), QCoreApplication::translate("GraphView", "no figure"), QColor(0xe6, 0xe6, 0xe6), 0});
  return out;
}

// The overlay's categories in its order, with what the graph shown holds of each.
std::vector<LegendEntry> categoryEntries(const std::map<QString, int>& counts, const GraphOverlay* overlay) {
  std::vector<LegendEntry> out;
  if (!overlay) return out;
  for (const GraphOverlay::Category& c : overlay->categories()) {
    const auto it = counts.find(c.key);
    if (it == counts.end()) continue;
    out.push_back({c.key, c.label, c.color, it->second});
  }
  return out;
}

// Costliest first, each with its time per step; past the palette one grey entry for the rest.
std::vector<LegendEntry> costEntries(const std::map<QString, int>& ops, const GraphData& data, const ColorIdentity& identity) {
  std::vector<LegendEntry> out, rest;
  for (const auto& [key, count] : ops) {
    if (key.isEmpty()) continue;
    const auto cost = identity.costOf(key);
    const auto calls = data.hypersectionCalls.find(key);
    QString label = cost ? QCoreApplication::translate("GraphView", "%1 · %2/step").arg(key, formatDuration(*cost)) : key;
    if (calls != data.hypersectionCalls.end())
      label += QCoreApplication::translate("GraphView", " · %n call(s)", nullptr, calls->second);
    LegendEntry entry{key, label, identity.hypersection(key), count};
    const int index = identity.hypersectionIndex(key);
    (index >= 0 && index < categoricalCount() ? out : rest).push_back(entry);
  }
  std::sort(out.begin(), out.end(), [&identity](const LegendEntry& a, const LegendEntry& b) {
    return identity.hypersectionIndex(a.key) < identity.hypersectionIndex(b.key);
  });
  if (!rest.empty()) {
    int restOps = 0;
    for (const LegendEntry& e : rest) restOps += e.count;
    out.push_back({QString(), QCoreApplication::translate("GraphView", "the rest: %n hypersection(s), cheaper", nullptr,
                                                          static_cast<int>(rest.size())),
                   QColor::fromRgb(kOtherColor), restOps});
  }
  if (const auto none = ops.find(QString()); none != ops.end())
    out.push_back({QString(), QCoreApplication::translate("GraphView", "none"), QColor::fromRgb(kNoneColor), none->second});
  return out;
}

}  // namespace

std::optional<OverlayMetric> overlayMetric(GraphColorMode mode) {
  switch (mode) {
    case GraphColorMode::MeasuredShare: return OverlayMetric::MeasuredShare;
    case GraphColorMode::MeasuredOverEstimate: return OverlayMetric::MeasuredOverEstimate;
    case GraphColorMode::PcuUse: return OverlayMetric::PcuUse;
    case GraphColorMode::PmuUse: return OverlayMetric::PmuUse;
    default: return std::nullopt;
  }
}

QString colorModeName(GraphColorMode mode) {
  switch (mode) {
    case GraphColorMode::OpType: return QCoreApplication::translate("GraphView", "Op type");
    case GraphColorMode::Section: return QCoreApplication::translate("GraphView", "Section");
    case GraphColorMode::Hypersection: return QCoreApplication::translate("GraphView", "Hypersection");
    case GraphColorMode::Hyperfunction: return QCoreApplication::translate("GraphView", "Hyperfunction");
    case GraphColorMode::MeasuredShare: return QCoreApplication::translate("GraphView", "Measured time share");
    case GraphColorMode::MeasuredOverEstimate: return QCoreApplication::translate("GraphView", "Measured / estimated");
    case GraphColorMode::PcuUse: return QCoreApplication::translate("GraphView", "PCU use");
    case GraphColorMode::PmuUse: return QCoreApplication::translate("GraphView", "PMU use");
    case GraphColorMode::Change: return QCoreApplication::translate("GraphView", "Section change");
    case GraphColorMode::Cost: return QCoreApplication::translate("GraphView", "Cost (costliest hypersections)");
  }
  return {};
}

const std::vector<std::pair<GraphColorMode, QString>>& colorModeIds() {
  static const std::vector<std::pair<GraphColorMode, QString>> kIds = {
      {GraphColorMode::Cost, QStringLiteral("cost")},
      {GraphColorMode::OpType, QStringLiteral("op-type")},
      {GraphColorMode::Section, QStringLiteral("section")},
      {GraphColorMode::Hypersection, QStringLiteral("hypersection")},
      {GraphColorMode::Hyperfunction, QStringLiteral("hyperfunction")},
      {GraphColorMode::MeasuredShare, QStringLiteral("time-share")},
      {GraphColorMode::MeasuredOverEstimate, QStringLiteral("measured-vs-estimate")},
      {GraphColorMode::PcuUse, QStringLiteral("pcu-use")},
      {GraphColorMode::PmuUse, QStringLiteral("pmu-use")}};
  return kIds;
}

std::optional<GraphColorMode> colorModeFromId(const QString& id) {
  for (const auto& [mode, name] : colorModeIds())
    if (name == id) return mode;
  return std::nullopt;
}

QString colorKey(const GraphNode& node, GraphColorMode mode) {
  switch (mode) {
    case GraphColorMode::OpType: return node.kind == GraphNodeKind::Collapsed ? QString() : node.op;
    case GraphColorMode::Section: return node.section < 0 ? QString() : QString::number(node.section);
    case GraphColorMode::Hypersection:
    case GraphColorMode::Cost: return node.section < 0 ? QString() : node.hypersectionName;
    case GraphColorMode::Hyperfunction: return node.hyperfunction.section(QLatin1Char('/'), 0, 0);
    default: return {};
  }
  return {};
}

bool colorsByKey(GraphColorMode mode) { return !overlayMetric(mode) && mode != GraphColorMode::Change; }

QColor nodeColor(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity, const GraphOverlay* overlay) {
  if (node.kind == GraphNodeKind::Input || node.kind == GraphNodeKind::Stub) return Qt::white;
  if (const auto metric = overlayMetric(mode)) return overlay ? overlay->color(*metric, node) : QColor(0xe6, 0xe6, 0xe6);
  if (mode == GraphColorMode::Change) {  // a folded node's main colour: its commonest category
    const auto counts = keyOps(node, mode, overlay);
    const auto top = std::max_element(counts.begin(), counts.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    return top == counts.end() ? QColor::fromRgb(kNoneColor) : keyColor(top->first, mode, identity, overlay);
  }
  return keyColor(colorKey(node, mode), mode, identity, overlay);
}

QBrush nodeBrush(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity, const QRectF& rect,
                 const GraphOverlay* overlay) {
  const std::map<QString, int> mix = keyOps(node, mode, overlay);
  if (node.kind != GraphNodeKind::Collapsed || mix.size() < 2) return nodeColor(node, mode, identity, overlay);
  std::vector<std::pair<QString, int>> parts(mix.begin(), mix.end());
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return naturalLess(a.first, b.first); });
  double total = 0;
  for (const auto& part : parts) total += part.second;
  QLinearGradient stripes(rect.topLeft(), rect.topRight());
  double at = 0;
  for (const auto& [key, ops] : parts) {
    const QColor c = keyColor(key, mode, identity, overlay);
    stripes.setColorAt(at, c);
    at += ops / total;
    stripes.setColorAt(std::max(0.0, std::min(1.0, at) - 1e-6), c);  // hard edges between stripes
  }
  return QBrush(stripes);
}

bool nodeHasKey(const GraphNode& node, GraphColorMode mode, const QString& key, const GraphOverlay* overlay) {
  if (node.kind == GraphNodeKind::Input || node.kind == GraphNodeKind::Stub) return false;
  return keyOps(node, mode, overlay).count(key) > 0;
}

std::vector<LegendEntry> legendEntries(const GraphData& data, GraphColorMode mode, const ColorIdentity& identity,
                                       const GraphOverlay* overlay) {
  if (const auto metric = overlayMetric(mode)) return colorBarEntries(*metric, overlay);
  std::map<QString, int> ops;
  for (const GraphNode& node : data.nodes) {
    if (node.kind == GraphNodeKind::Input || node.kind == GraphNodeKind::Stub) continue;
    for (const auto& [key, count] : keyOps(node, mode, overlay)) ops[key] += count;
  }
  if (mode == GraphColorMode::Change) return categoryEntries(ops, overlay);
  if (mode == GraphColorMode::Cost) return costEntries(ops, data, identity);
  std::vector<LegendEntry> out;
  for (const auto& [key, count] : ops) {
    LegendEntry entry;
    entry.key = key;
    entry.color = keyColor(key, mode, identity, overlay);
    entry.count = count;
    const QString name = key.isEmpty() ? QCoreApplication::translate("GraphView", "none") : mode == GraphColorMode::Section ? QCoreApplication::translate("GraphView", "section %1").arg(key) : key;
    const auto calls = data.hypersectionCalls.find(key);
    entry.label = byHypersection(mode) && calls != data.hypersectionCalls.end()
                      ? QCoreApplication::translate("GraphView", "%1 · %n call(s)", nullptr, calls->second).arg(name)
                      : QCoreApplication::translate("GraphView", "%1 · %n op(s)", nullptr, count).arg(name);
    out.push_back(entry);
  }
  // By id or natural name ("none" last): the legend reads in the graph's order.
  std::sort(out.begin(), out.end(), [mode](const LegendEntry& a, const LegendEntry& b) {
    if (a.key.isEmpty() != b.key.isEmpty()) return b.key.isEmpty();
    if (mode == GraphColorMode::Section) return a.key.toInt() < b.key.toInt();
    return naturalLess(a.key, b.key);
  });
  return out;
}

}  // namespace dfc::views
