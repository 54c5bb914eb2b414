#pragma once
// What a node's colour means: op type, section, hypersection or
// hyperfunction. One function maps a node to its colour key and colour, so
// the view, the legend and the DOT export always agree.
#include <QColor>
#include <QString>
#include <vector>

#include "graph/GraphData.h"

namespace dfc::views {

enum class GraphColorMode { OpType, Section, Hypersection, Hyperfunction };

struct LegendEntry {
  QString label;  // "conv2d", "section 3", "hypersection 1", "h.0", "none"
  QColor color;
  int count = 0;  // shown nodes with this colour
};

QString colorModeName(GraphColorMode mode);  // translated, for combo boxes
QString colorKey(const GraphNode& node, GraphColorMode mode);
QColor nodeColor(const GraphNode& node, GraphColorMode mode);
// Distinct colours of the shown nodes, most frequent first (inputs left out).
std::vector<LegendEntry> legendEntries(const GraphData& data, GraphColorMode mode);

}  // namespace dfc::views
