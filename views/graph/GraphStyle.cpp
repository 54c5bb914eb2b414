#include "graph/GraphStyle.h"

#include <QCoreApplication>
#include <algorithm>
#include <map>

#include "graph/SectionPalette.h"

namespace dfc::views {
namespace {

QColor hashedColor(const QString& key) {
  uint32_t hash = 2166136261u;  // FNV-1a: the same key keeps its colour across runs
  for (QChar c : key) hash = (hash ^ c.unicode()) * 16777619u;
  return QColor::fromHsv(static_cast<int>(hash % 360), 70 + static_cast<int>((hash >> 9) % 80), 245);
}

}  // namespace

QString colorModeName(GraphColorMode mode) {
  switch (mode) {
    case GraphColorMode::OpType: return QCoreApplication::translate("GraphView", "Op type");
    case GraphColorMode::Section: return QCoreApplication::translate("GraphView", "Section");
    case GraphColorMode::Hypersection: return QCoreApplication::translate("GraphView", "Hypersection");
    case GraphColorMode::Hyperfunction: return QCoreApplication::translate("GraphView", "Hyperfunction");
  }
  return {};
}

QString colorKey(const GraphNode& node, GraphColorMode mode) {
  const QString none = QCoreApplication::translate("GraphView", "none");
  switch (mode) {
    case GraphColorMode::OpType: return node.op;
    case GraphColorMode::Section:
      return node.section < 0 ? none : QCoreApplication::translate("GraphView", "section %1").arg(node.section);
    case GraphColorMode::Hypersection:
      return node.hypersection < 0 || node.section < 0
                 ? none
                 : QCoreApplication::translate("GraphView", "hypersection %1").arg(node.hypersection);
    case GraphColorMode::Hyperfunction: return node.hyperfunction.isEmpty() ? none : node.hyperfunction;
  }
  return none;
}

QColor nodeColor(const GraphNode& node, GraphColorMode mode) {
  if (node.kind == GraphNodeKind::Input) return Qt::white;
  switch (mode) {
    case GraphColorMode::OpType:
      return node.kind == GraphNodeKind::Collapsed ? QColor(0xd8, 0xdc, 0xe8) : hashedColor(node.op);
    case GraphColorMode::Section: return sectionColor(node.section);
    case GraphColorMode::Hypersection: return sectionColor(node.section < 0 ? -1 : node.hypersection * 3 + 1);
    case GraphColorMode::Hyperfunction:
      return node.hyperfunction.isEmpty() ? sectionColor(-1) : hashedColor(node.hyperfunction);
  }
  return sectionColor(-1);
}

std::vector<LegendEntry> legendEntries(const GraphData& data, GraphColorMode mode) {
  // Keyed by (section or hypersection id, label) so "section 2" lists before "section 10".
  std::map<std::pair<int, QString>, LegendEntry> byKey;
  for (const GraphNode& node : data.nodes) {
    if (node.kind == GraphNodeKind::Input) continue;
    const int order = mode == GraphColorMode::Section ? node.section
                      : mode == GraphColorMode::Hypersection && node.section >= 0 ? node.hypersection
                                                                                   : -1;
    LegendEntry& entry = byKey[{order, colorKey(node, mode)}];
    entry.label = colorKey(node, mode);
    entry.color = nodeColor(node, mode);
    ++entry.count;
  }
  std::vector<LegendEntry> out;
  for (auto& [key, entry] : byKey) out.push_back(entry);
  std::stable_sort(out.begin(), out.end(), [](const LegendEntry& a, const LegendEntry& b) { return a.count > b.count; });
  return out;
}

}  // namespace dfc::views
