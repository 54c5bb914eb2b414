#pragma once
// Layer 3 of a PEF's compile report: per section figures after placement
// (what `dfc inspect`, `dfc report` and dfstudio show as placed PCUs/PMUs).
#include <cstdint>
#include <map>
#include <string>

namespace dfc::pef {

struct PlacedSection {
  int64_t pcus = 0, pmus = 0, hops = 0;
  double minUs = 0, maxUs = 0;
};

// Section id -> figures; empty for a report without layer 3 (an older PEF)
// or one that does not parse. Absent keys stay 0.
std::map<int64_t, PlacedSection> placedSections(const std::string& reportJson);

}  // namespace dfc::pef
