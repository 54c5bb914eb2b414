// Roofline points (analysis/Roofline.h) worked by hand: a compute roof of
// 10 TFLOP/s and an HBM roof of 1000 GB/s meet at 10 FLOP/byte.
#include <catch2/catch.hpp>

#include "analysis/Roofline.h"

using namespace dfc;

namespace {

partition::Section section(int id, double flop, double bytes, double latencyUs) {
  partition::Section s;
  s.id = id;
  s.name = "s" + std::to_string(id);
  s.estimate.flop = flop;
  s.estimate.ddrBytes = bytes;
  s.estimate.latencyUs = latencyUs;
  return s;
}

arch::ArchSpec handArch(double hbmGbps) {
  arch::ArchSpec a;
  a.peakTflops = 10;
  a.hbmGbps = hbmGbps;
  a.ddrGbps = 100;
  return a;
}

}  // namespace

TEST_CASE("roofline points: intensity, the roof that caps each, exactly at the ridge is compute",
          "[analysis][roofline]") {
  partition::Plan plan;
  plan.sections = {section(0, 2e9, 1e9, 1000),   // 2 FLOP/byte: HBM caps at 2 x 1000 GB/s = 2 TFLOP/s
                   section(1, 1e10, 1e9, 1000),  // 10 FLOP/byte: the ridge, compute
                   section(2, 5e9, 0, 0)};       // no off-chip bytes: compute, intensity 0
  const analysis::Roofline r = analysis::roofline(plan, handArch(1000));
  REQUIRE(r.roofs.size() == 3);
  CHECK(r.roofs[0].name == "compute");
  CHECK(r.roofs[1].name == "hbm");
  CHECK(r.roofs[2].name == "ddr");
  CHECK(r.ridgeIntensity == Approx(10));
  REQUIRE(r.points.size() == 3);
  CHECK(r.points[0].intensity == Approx(2));
  CHECK(r.points[0].attainableTflops == Approx(2));
  CHECK(r.points[0].bound == "hbm");
  CHECK(r.points[0].estimatedTflops == Approx(2));  // 2e9 FLOP in 1 ms
  CHECK(r.points[1].bound == "compute");
  CHECK(r.points[1].attainableTflops == Approx(10));
  CHECK(r.points[2].intensity == 0);
  CHECK(r.points[2].bound == "compute");
  CHECK(r.points[2].estimatedTflops == 0);
  CHECK(r.points[0].tflop == Approx(0.002));
  CHECK(r.points[0].bytes == 1e9);
}

TEST_CASE("without HBM the DDR roof caps a memory-bound section", "[analysis][roofline]") {
  partition::Plan plan;
  plan.sections = {section(0, 2e9, 1e9, 1000)};
  const analysis::Roofline r = analysis::roofline(plan, handArch(0));
  REQUIRE(r.roofs.size() == 2);
  CHECK(r.ridgeIntensity == Approx(100));
  CHECK(r.points[0].bound == "ddr");
  CHECK(r.points[0].attainableTflops == Approx(0.2));
  const std::string csv = analysis::rooflineCsv(r, plan);
  CHECK(csv.starts_with("id,section,tflop,bytes,flop_per_byte,attainable_tflops,estimated_tflops,bound\n0,s0,"));
  CHECK(csv.ends_with(",ddr\n"));
}
