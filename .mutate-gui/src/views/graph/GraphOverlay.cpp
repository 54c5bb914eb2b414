#include "graph/GraphOverlay.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

#include "schedule/ScheduleData.h"

namespace dfc::views {
namespace {

double unitShare(int units, int chipUnits) { return chipUnits > 0 ? static_cast<double>(units) / chipUnits : 0.0; }

size_t unitIndex(OverlayMetric metric) { return metric == OverlayMetric::PmuUse ? 1 : 0; }

}  // namespace

GraphOverlay GraphOverlay::fromSchedule(const ScheduleData& schedule) {
  GraphOverlay out;
  std::map<int, int> callsPerStep;
  for (int id : schedule.schedule) ++callsPerStep[id];
  for (const ScheduleSection& s : schedule.sections) {
    const int calls = std::max(1, callsPerStep[s.id]);
    Figures f;
    f.estUs = s.estLatencyUs * calls;
    if (s.measuredMeanUs) f.measuredUs = *s.measuredMeanUs * calls;
    f.use = {unitShare(s.placedPcus.value_or(s.pcus), schedule.archPcus),
             unitShare(s.placedPmus.value_or(s.pmus), schedule.archPmus)};
    out.m_sections[s.id] = f;
    if (f.measuredUs) out.m_totalMeasuredUs += *f.measuredUs;
  }
  // Until fitted to a graph: the ramp spans the sections one by one.
  std::vector<GraphNode> perSection;
  for (const auto& [id, f] : out.m_sections) {
    perSection.emplace_back();
    perSection.back().section = id;
  }
  out.fitRanges(perSection);
  return out;
}

GraphOverlay GraphOverlay::fittedTo(const GraphData& data) const {
  GraphOverlay out = *this;
  out.fitRanges(data.nodes);
  return out;
}

void GraphOverlay::fitRanges(const std::vector<GraphNode>& nodes) {
  for (OverlayMetric metric : {OverlayMetric::MeasuredShare, OverlayMetric::MeasuredOverEstimate, OverlayMetric::PcuUse,
                              OverlayMetric::PmuUse}) {
    Range r;
    bool first = true;
    for (const GraphNode& node : nodes) {
      const auto v = value(metric, node);
      if (!v || (metric == OverlayMetric::MeasuredOverEstimate && *v <= 0)) continue;
      r.low = first ? *v : std::min(r.low, *v);
      r.high = first ? *v : std::max(r.high, *v);
      first = false;
    }
    if (metric != OverlayMetric::MeasuredOverEstimate) r.low = 0;                 // shares and use from nothing
    if (isUnitUse(metric)) r.high = std::max(r.high, 1.0);                       // against the whole chip
    m_ranges[static_cast<size_t>(metric)] = r;
  }
}

std::vector<int> GraphOverlay::sectionsOf(const GraphNode& node) const {
  if (node.kind == GraphNodeKind::Collapsed) return {node.sections.begin(), node.sections.end()};
  if (node.section >= 0) return {node.section};
  return {};
}

std::optional<double> GraphOverlay::value(OverlayMetric metric, const GraphNode& node) const {
  double est = 0, measured = 0, use = 0;
  const size_t unit = unitIndex(metric);
  bool anyMeasured = false, any = false;
  for (int id : sectionsOf(node)) {
    const auto it = m_sections.find(id);
    if (it == m_sections.end()) continue;
    any = true;
    est += it->second.estUs;
    use = std::max(use, it->second.use[unit]);
    if (it->second.measuredUs) {
      anyMeasured = true;
      measured += *it->second.measuredUs;
    }
  }
  if (!any) return std::nullopt;
  switch (metric) {
    case OverlayMetric::MeasuredShare:
      if (!anyMeasured || m_totalMeasuredUs <= 0) return std::nullopt;
      return measured / m_totalMeasuredUs;
    case OverlayMetric::MeasuredOverEstimate:
      if (!anyMeasured || est <= 0 || measured <= 0) return std::nullopt;
      return measured / est;
    case OverlayMetric::PcuUse:
    case OverlayMetric::PmuUse: return use;
  }
  return std::nullopt;
}

double GraphOverlay::position(OverlayMetric metric, double value) const {
  const double low = range(metric).low, high = range(metric).high;
  if (high <= low) return value > 0 ? 1.0 : 0.0;
  double t = 0;
  if (metric == OverlayMetric::MeasuredOverEstimate && low > 0)
    t = std::log(std::max(value, low) / low) / std::log(high / low);
  else
    t = (value - low) / (high - low);
  return std::clamp(t, 0.0, 1.0);
}

QColor GraphOverlay::color(OverlayMetric metric, const GraphNode& node) const {
  const auto v = value(metric, node);
  return v ? rampColor(position(metric, *v)) : QColor(0xe6, 0xe6, 0xe6);
}

QString GraphOverlay::format(OverlayMetric metric, double value) {
  const QLocale locale;
  switch (metric) {
    case OverlayMetric::MeasuredShare: return locale.toString(100.0 * value, 'g', 3) + QStringLiteral(" %");
    case OverlayMetric::MeasuredOverEstimate: return QStringLiteral("×") + locale.toString(value, 'g', 3);
    case OverlayMetric::PcuUse: return locale.toString(100.0 * value, 'g', 3) + QStringLiteral(" % PCUs");
    case OverlayMetric::PmuUse: return locale.toString(100.0 * value, 'g', 3) + QStringLiteral(" % PMUs");
  }
  return {};
}

std::vector<std::pair<double, QColor>> GraphOverlay::colorBar(OverlayMetric metric, int stops) const {
  std::vector<std::pair<double, QColor>> out;
  const double low = range(metric).low, high = range(metric).high;
  const bool logScale = metric == OverlayMetric::MeasuredOverEstimate && low > 0 && high > low;
  for (int i = 0; i < stops; ++i) {
    const double t = stops > 1 ? static_cast<double>(i) / (stops - 1) : 1.0;
    const double v = logScale ? low * std::pow(high / low, t) : low + (high - low) * t;
    out.emplace_back(v, rampColor(t));
  }
  return out;
}

void GraphOverlay::setSectionCategories(std::map<int, QString> categoryOfSection, std::vector<Category> categories) {
  m_categoryOfSection = std::move(categoryOfSection);
  m_categories = std::move(categories);
}

std::map<QString, int> GraphOverlay::categoryCounts(const GraphNode& node) const {
  std::map<QString, int> out;
  for (int id : sectionsOf(node)) {
    const auto it = m_categoryOfSection.find(id);
    ++out[it == m_categoryOfSection.end() ? QString() : it->second];
  }
  return out;
}

QColor GraphOverlay::categoryColor(const QString& key) const {
  for (const Category& c : m_categories)
    if (c.key == key) return c.color;
  return QColor(0xe6, 0xe6, 0xe6);
}

QColor rampColor(double position) {
  // Sequential, light to dark (pale yellow, orange, dark red): more reads darker.
  static const QColor kStops[] = {QColor(0xff, 0xf5, 0xc8), QColor(0xf6, 0xa0, 0x4d), QColor(0xd9, 0x4a, 0x2b),
                                  QColor(0x7a, 0x10, 0x2a)};
  const double t = std::clamp(position, 0.0, 1.0) * 3.0;
  const int i = std::min(2, static_cast<int>(t));
  const double f = t - i;
  const QColor& a = kStops[i];
  const QColor& b = kStops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

}  // namespace dfc::views
