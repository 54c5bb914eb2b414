#pragma once
// Data overlays on the graph (Model Explorer's per-node heat maps, with our
// own figures): a node takes the colour of its sections' measured time
// share, measured/estimated ratio or chip use on a continuous ramp. Figures
// come from the schedule (estimate per section, measured mean and calls of
// the latest run); a folded node sums (time) or takes the peak (use) of the
// sections inside it.
#include <QColor>
#include <QString>
#include <array>
#include <map>
#include <optional>
#include <vector>

#include "graph/GraphData.h"

namespace dfc::views {

struct ScheduleData;

enum class OverlayMetric { MeasuredShare, MeasuredOverEstimate, PcuUse, PmuUse };
// PCU and PMU use are one figure over two kinds of unit.
constexpr bool isUnitUse(OverlayMetric metric) {
  return metric == OverlayMetric::PcuUse || metric == OverlayMetric::PmuUse;
}

class GraphOverlay {
 public:
  static GraphOverlay fromSchedule(const ScheduleData& schedule);
  // The ramp spans the values of the nodes shown (a folded layer sums its
  // sections, so a ramp over sections alone would saturate it).
  GraphOverlay fittedTo(const GraphData& data) const;

  // The node's figure: share in [0, 1], ratio (> 0), use in [0, 1] of the
  // chip's PCUs; empty when its sections have none (not run, not placed).
  std::optional<double> value(OverlayMetric metric, const GraphNode& node) const;
  // The value's place on the ramp, 0 (light) to 1 (dark): linear for shares
  // and use, logarithmic between the smallest and largest ratio.
  double position(OverlayMetric metric, double value) const;
  QColor color(OverlayMetric metric, const GraphNode& node) const;
  // "12.5 %", "×340", "80 % PCUs", "40 % PMUs"
  static QString format(OverlayMetric metric, double value);
  // Stops of the colour bar, light to dark: (value, colour).
  std::vector<std::pair<double, QColor>> colorBar(OverlayMetric metric, int stops) const;
  bool hasMeasured() const { return m_totalMeasuredUs > 0; }

  // Categories of sections, each with its colour (compare's graph diff: how
  // each section changed), in legend order; a section without one is "".
  struct Category {
    QString key;    // what the legend selects by ("merged")
    QString label;  // what it says ("merged: several left sections became one")
    QColor color;
  };
  void setSectionCategories(std::map<int, QString> categoryOfSection, std::vector<Category> categories);
  const std::vector<Category>& categories() const { return m_categories; }
  // Per category, the sections of the node in it (a plain op: its one section).
  std::map<QString, int> categoryCounts(const GraphNode& node) const;
  QColor categoryColor(const QString& key) const;

 private:
  struct Figures {
    double estUs = 0;                  // per step: estimate x calls in the schedule
    std::optional<double> measuredUs;  // per step: measured mean x calls in the schedule
    std::array<double, 2> use{};       // of the chip's PCUs, PMUs: 0..1
  };
  struct Range {
    double low = 0, high = 0;
  };
  std::vector<int> sectionsOf(const GraphNode& node) const;
  void fitRanges(const std::vector<GraphNode>& nodes);
  const Range& range(OverlayMetric metric) const { return m_ranges[static_cast<size_t>(metric)]; }

  std::map<int, Figures> m_sections;
  double m_totalMeasuredUs = 0;
  std::array<Range, 4> m_ranges{};  // by OverlayMetric
  std::map<int, QString> m_categoryOfSection;
  std::vector<Category> m_categories;
};

QColor rampColor(double position);  // 0..1, pale yellow to dark red

}  // namespace dfc::views
