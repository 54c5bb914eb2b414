#pragma once
// What a node's colour means: op type, section, hypersection or
// hyperfunction. One function maps a node to its colour key and fill, so the
// view, the legend and the DOT export always agree. Categorical colours come
// from the document's ColorIdentity, so a hypersection has the same colour
// here as in the timeline, the schedule and compare.
#include <QBrush>
#include <QColor>
#include <QString>
#include <vector>

#include "graph/GraphData.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

enum class GraphColorMode { OpType, Section, Hypersection, Hyperfunction };

struct LegendEntry {
  QString key;    // what selects it: "conv2d", a section id, a hypersection name, "h.0"; "" = none
  QString label;  // "hs8_h.1 · 36 calls", "conv2d · 12 nodes"
  QColor color;
  int count = 0;  // ops with this colour (a folded node counts its ops)
};

QString colorModeName(GraphColorMode mode);  // translated, for combo boxes
QString colorKey(const GraphNode& node, GraphColorMode mode);
QColor nodeColor(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity);
// The fill: a folded node holding several hypersections (or hyperfunctions
// in section mode) shows each in a stripe as wide as its share of ops.
QBrush nodeBrush(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity, const QRectF& rect);
// Every colour of the shown nodes, folded nodes' contents included, in a
// stable order (by id or natural name); inputs left out.
std::vector<LegendEntry> legendEntries(const GraphData& data, GraphColorMode mode, const ColorIdentity& identity);
// True when a node belongs to a legend key (a folded node when any op does).
bool nodeHasKey(const GraphNode& node, GraphColorMode mode, const QString& key);

}  // namespace dfc::views
