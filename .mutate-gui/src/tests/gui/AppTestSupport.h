#pragma once
// Helpers for the App*/Compile*/Schedule*/Runs* GUI tests.
#include <QImage>
#include <algorithm>
#include <QWidget>

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
  pef.contentHash = guitest::kPefHash;
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

// Pixels of exactly `colour` (solid fills keep it; antialiased edges and text do not).
inline int pixelCount(const QImage& image, QRgb colour) {
  const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
  int n = 0;
  for (int y = 0; y < rgb.height(); ++y)
    for (int x = 0; x < rgb.width(); ++x) n += (rgb.pixel(x, y) & 0xffffff) == (colour & 0xffffff);
  return n;
}

// Share of the pixels that differ between two pictures of one widget, over
// the area they have in common (from the top left).
inline double changedShare(const QImage& a, const QImage& b) {
  const int w = std::min(a.width(), b.width()), h = std::min(a.height(), b.height());
  if (w <= 0 || h <= 0) return 1.0;
  const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
  qint64 changed = 0;
  for (int row = 0; row < h; ++row)
    for (int col = 0; col < w; ++col) changed += x.pixel(col, row) != y.pixel(col, row);
  return static_cast<double>(changed) / (static_cast<double>(w) * h);
}

}  // namespace apptest
