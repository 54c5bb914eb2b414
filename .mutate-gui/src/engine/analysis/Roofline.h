#pragma once
// A roofline per section: its arithmetic intensity (estimated FLOP per
// off-chip byte, the mapper's estimate that the compile report stores) against
// the arch's compute roof and each off-chip tier's bandwidth roof. Plain data
// for `dfc inspect --roofline` and a future view.
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "partition/Plan.h"

namespace dfc::analysis {

struct RooflineRoof {
  std::string name;  // "compute", "hbm", "ddr"
  double value = 0;  // TFLOP/s for compute, GB/s for a tier
};

struct RooflinePoint {
  int section = 0;
  double tflop = 0;             // per call
  double bytes = 0;             // off-chip bytes per call
  double intensity = 0;         // FLOP per byte (0 when the section moves no bytes)
  double attainableTflops = 0;  // min(compute roof, intensity x the fastest tier's bandwidth)
  double estimatedTflops = 0;   // FLOP / estimated latency
  std::string bound;            // "compute" or the tier whose roof caps it
};

struct Roofline {
  std::vector<RooflineRoof> roofs;  // compute first, then the tiers the arch has
  double ridgeIntensity = 0;        // FLOP/byte where the fastest tier's roof meets compute
  std::vector<RooflinePoint> points;
};

Roofline roofline(const partition::Plan& plan, const arch::ArchSpec& arch);
std::string formatRoofline(const Roofline& r, const partition::Plan& plan);
std::string rooflineCsv(const Roofline& r, const partition::Plan& plan);

}  // namespace dfc::analysis
