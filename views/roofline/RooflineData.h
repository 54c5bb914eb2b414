#pragma once
// Plain data behind the Roofline screen: each section's estimated point
// against the arch's roofs (engine/analysis/Roofline, what `dfc inspect
// --roofline` prints) and, where a run measured the sections, their points on
// the host's own roofline (analysis/HostRoofline: its measured GEMM FLOP/s and
// triad bandwidth).
#include <QString>
#include <map>
#include <optional>
#include <vector>

#include "analysis/HostRoofline.h"
#include "analysis/Roofline.h"
#include "pef/Pef.h"

namespace dfc::views {

struct RooflineViewData {
  QString title;
  QString arch;
  QString error;  // why there are no roofs (an unknown arch); empty otherwise
  analysis::Roofline roofline;
  std::vector<QString> sectionNames;        // by section id
  std::optional<analysis::HostPeaks> host;  // set when a run measured sections
  std::vector<analysis::HostRooflinePoint> hostPoints;
  QString csv;  // rooflineViewCsv

  bool empty() const { return roofline.roofs.empty(); }
};

// `meanUsBySection`: section id -> mean measured host microseconds per call
// (empty: never run, no host points); `host`: the host's peaks to plot them
// against (null: measure them, analysis::hostPeaks(), once per process).
RooflineViewData buildRooflineViewData(const pef::Pef& pef, const std::map<int, double>& meanUsBySection,
                                       const analysis::HostPeaks* host = nullptr);

// One row per section: the columns of `dfc inspect --roofline --csv`, then
// its measured host time per call and achieved GFLOP/s (blank when not
// measured), as `dfc inspect --roofline --csv --run ID` prints them.
QString rooflineViewCsv(const RooflineViewData& data);

}  // namespace dfc::views
