#include "graph/GraphStyle.h"

#include <QCoreApplication>
#include <QRegularExpression>
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

// "h.2" < "h.10": runs of digits compare as numbers, the rest as text.
bool naturalLess(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      qsizetype ei = i, ej = j;
      while (ei < a.size() && a[ei].isDigit()) ++ei;
      while (ej < b.size() && b[ej].isDigit()) ++ej;
      const QString na = a.mid(i, ei - i), nb = b.mid(j, ej - j);
      // Compare by value without overflow: strip leading zeros, then length, then digits.
      const QString ta = na.size() > 1 ? QString(na).remove(QRegularExpression(QStringLiteral("^0+(?=\\d)"))) : na;
      const QString tb = nb.size() > 1 ? QString(nb).remove(QRegularExpression(QStringLiteral("^0+(?=\\d)"))) : nb;
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
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

struct LegendKeyLess {
  bool operator()(const std::pair<int, QString>& a, const std::pair<int, QString>& b) const {
    if (a.first != b.first) return a.first < b.first;
    return naturalLess(a.second, b.second);
  }
};

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
  // Keyed by (section or hypersection id, label) so "section 2" lists before
  // "section 10"; labels compare naturally, so "h.2" lists before "h.10".
  std::map<std::pair<int, QString>, LegendEntry, LegendKeyLess> byKey;
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
