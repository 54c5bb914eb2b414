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
#include "graph/GraphOverlay.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

// MeasuredShare..PmuUse are data overlays (GraphOverlay): a continuous ramp,
// not categories. Change colours by the overlay's section categories (how a
// section changed between two compiles); it is offered where a comparison sets them.
// Cost colours hypersections as Hypersection does, its legend in cost order
// with each one's time per step (the palette's order when the document's
// ColorIdentity is by cost, ColorScheme::Cost).
enum class GraphColorMode { OpType, Section, Hypersection, Hyperfunction, MeasuredShare, MeasuredOverEstimate, PcuUse,
                            PmuUse, Change, Cost };
// Cost and Hypersection both colour by hypersection.
constexpr bool byHypersection(GraphColorMode mode) {
  return mode == GraphColorMode::Hypersection || mode == GraphColorMode::Cost;
}
std::optional<OverlayMetric> overlayMetric(GraphColorMode mode);

struct LegendEntry {
  QString key;    // what selects it: "conv2d", a section id, a hypersection name, "h.0"; "" = none
  QString label;  // "hs8_h.1 · 36 calls", "conv2d · 12 nodes"
  QColor color;
  int count = 0;  // ops with this colour (a folded node counts its ops)
};

QString colorModeName(GraphColorMode mode);  // translated, for combo boxes
// Untranslated ids for the command line ("op-type", ..., "pmu-use"), all modes in order.
const std::vector<std::pair<GraphColorMode, QString>>& colorModeIds();
std::optional<GraphColorMode> colorModeFromId(const QString& id);
QString colorKey(const GraphNode& node, GraphColorMode mode);
// overlay: the figures the overlay modes colour by (none: those nodes stay grey).
QColor nodeColor(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity,
                 const GraphOverlay* overlay = nullptr);
// The fill: a folded node holding several hypersections (or hyperfunctions
// in section mode) shows each in a stripe as wide as its share of ops.
QBrush nodeBrush(const GraphNode& node, GraphColorMode mode, const ColorIdentity& identity, const QRectF& rect,
                 const GraphOverlay* overlay = nullptr);
// Every colour of the shown nodes, folded nodes' contents included, in a
// stable order (by id or natural name); inputs left out. An overlay mode
// lists its colour bar instead, light to dark, with the values it stands for.
std::vector<LegendEntry> legendEntries(const GraphData& data, GraphColorMode mode, const ColorIdentity& identity,
                                       const GraphOverlay* overlay = nullptr);
// True when a node belongs to a legend key (a folded node when any op does).
bool nodeHasKey(const GraphNode& node, GraphColorMode mode, const QString& key, const GraphOverlay* overlay = nullptr);
// A node's colour depends on its colorKey alone (not an overlay's figures).
bool colorsByKey(GraphColorMode mode);

}  // namespace dfc::views
