#pragma once
// Helpers for the App*/Compile*/Schedule*/Runs* GUI tests.
#include <QImage>
#include <QWidget>
#include <set>

#include "GuiTestSupport.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"
#include "schedule/ScheduleData.h"

namespace apptest {

// makeGraph()/makePlan() with estimates filled in, as a PEF on sn30.
inline dfc::pef::Pef makePef() {
  dfc::pef::Pef pef;
  pef.meta.pefName = "tiny";
  pef.meta.model = "tiny";
  pef.meta.optLevel = "o3";
  pef.meta.arch = "sn30";
  pef.graph = guitest::makeGraph();
  pef.plan = guitest::makePlan();
  const int pcus[] = {40, 12, 200};
  const double latency[] = {5.0, 30.0, 1.5};
  for (size_t i = 0; i < pef.plan.sections.size(); ++i) {
    auto& e = pef.plan.sections[i].estimate;
    e.pcus = pcus[i];
    e.pmus = pcus[i] / 2;
    e.latencyUs = latency[i];
    e.flop = 1e9 * static_cast<double>(i + 1);
  }
  pef.plan.sections[2].type = dfc::ir::NodeRole::Backward;
  return pef;
}

// Section 1 measured, the others never run.
inline dfc::views::MeasuredSections makeMeasured() { return {{1, {90.0, 3}}}; }

inline dfc::profile::CompileRecord makeCompileRecord(const std::string& pefPath, const std::string& model) {
  dfc::profile::CompileRecord c;
  c.pefPath = pefPath;
  c.pefName = model;
  c.model = model;
  c.args = "dfc compile --model " + model;
  c.optLevel = "o3";
  c.arch = "sn30";
  c.batchSize = 16;
  c.startedAt = "2026-01-02T03:04:05Z";
  c.durationMs = 12;
  return c;
}

// Distinct colours on a 3-pixel grid: a blank or one-colour widget has few.
inline size_t colourCount(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  return colours.size();
}

}  // namespace apptest
