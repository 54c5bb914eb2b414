#include "analysis/Roofline.h"

#include <algorithm>
#include <cstdio>

namespace dfc::analysis {

Roofline roofline(const partition::Plan& plan, const arch::ArchSpec& arch) {
  Roofline r;
  r.roofs.push_back({"compute", arch.peakTflops});
  if (arch.hbmGbps > 0) r.roofs.push_back({"hbm", arch.hbmGbps});
  r.roofs.push_back({"ddr", arch.ddrGbps});
  const RooflineRoof& fastest = r.roofs[1];  // off-chip traffic streams through the fastest tier
  const double peakFlops = arch.peakTflops * 1e12;
  const double bytesPerSecond = fastest.value * 1e9;
  r.ridgeIntensity = bytesPerSecond > 0 ? peakFlops / bytesPerSecond : 0;
  for (const partition::Section& s : plan.sections) {
    RooflinePoint p;
    p.section = s.id;
    p.tflop = s.estimate.flop / 1e12;
    p.bytes = s.estimate.ddrBytes;
    p.intensity = p.bytes > 0 ? s.estimate.flop / p.bytes : 0;
    const bool memoryBound = p.bytes > 0 && p.intensity < r.ridgeIntensity;
    p.attainableTflops = memoryBound ? p.intensity * bytesPerSecond / 1e12 : arch.peakTflops;
    p.bound = memoryBound ? fastest.name : "compute";
    p.estimatedTflops = s.estimate.latencyUs > 0 ? s.estimate.flop / (s.estimate.latencyUs * 1e-6) / 1e12 : 0;
    r.points.push_back(std::move(p));
  }
  return r;
}

std::string formatRoofline(const Roofline& r, const partition::Plan& plan) {
  std::string out = "roofs:";
  for (const RooflineRoof& roof : r.roofs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s %.6g %s", roof.name.c_str(), roof.value,
                  roof.name == "compute" ? "TFLOP/s" : "GB/s");
    out += buf;
  }
  char line[200];
  std::snprintf(line, sizeof line, "; ridge at %.6g FLOP/byte\n", r.ridgeIntensity);
  out += line;
  std::snprintf(line, sizeof line, "%4s  %-28s %14s %16s %12s %14s %14s  %s\n", "id", "section", "TFLOP", "bytes",
                "FLOP/byte", "attain_TFLOP/s", "est_TFLOP/s", "bound");
  out += line;
  for (const RooflinePoint& p : r.points) {
    std::snprintf(line, sizeof line, "%4d  %-28.28s %14.9f %16.0f %12.4f %14.6f %14.6f  %s\n", p.section,
                  plan.sections[static_cast<size_t>(p.section)].name.c_str(), p.tflop, p.bytes, p.intensity,
                  p.attainableTflops, p.estimatedTflops, p.bound.c_str());
    out += line;
  }
  return out;
}

std::string rooflineCsv(const Roofline& r, const partition::Plan& plan) {
  std::string out = "id,section,tflop,bytes,flop_per_byte,attainable_tflops,estimated_tflops,bound\n";
  char line[256];
  for (const RooflinePoint& p : r.points) {
    std::snprintf(line, sizeof line, "%d,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%s\n", p.section,
                  plan.sections[static_cast<size_t>(p.section)].name.c_str(), p.tflop, p.bytes, p.intensity,
                  p.attainableTflops, p.estimatedTflops, p.bound.c_str());
    out += line;
  }
  return out;
}

}  // namespace dfc::analysis
