#pragma once
// Issue 35's CLI and GUI tests share these: LeNet compiled by dfc (-o1, batch
// 8, sn30), and the figures its compile report records per section.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "TestEnv.h"

namespace dfc::test {

// The PEF's path.
inline std::string compileLenetO1(const ScratchDir& dir) {
  auto r =
      runDfc("compile --db - --model lenet -o1 -b 8 --arch sn30 --pef-name lenet --output-folder " + (dir / "out"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  return dir / "out/lenet.pef";
}

// Layer 1's TFLOP per hypersection (its instances are alike) and layer 3's off-chip bytes per section.
struct ReportFigures {
  std::map<int64_t, double> tflopOfHypersection, bytesOfSection;
};

inline ReportFigures reportFigures(const std::string& reportJson) {
  simdjson::dom::parser parser;
  simdjson::dom::element report = parser.parse(reportJson);
  ReportFigures f;
  for (simdjson::dom::element h : report["layer1_hypersections"].get_array())
    f.tflopOfHypersection[h["id"].get_int64()] = h["tflop"].get_double();
  for (simdjson::dom::element s : report["layer3_sections"].get_array())
    f.bytesOfSection[s["id"].get_int64()] = s["ddr_bytes"].get_double();
  return f;
}

}  // namespace dfc::test
