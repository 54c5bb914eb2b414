#pragma once
// "Why here": one row per section boundary of a plan, between section i-1 and
// section i in id order (the order the mapper cut them), with the reason
// recorded for section i (partition/CutReason.h). Plain data for
// `dfc inspect --why` and the Schedule screen's "why" column.
#include <string>
#include <vector>

#include "partition/Plan.h"

namespace dfc::analysis {

struct SectionBoundary {
  int before = 0;  // section id on the near side
  int after = 0;   // section id that starts here
  partition::CutReason cut;
};

std::vector<SectionBoundary> sectionBoundaries(const partition::Plan& plan);
// One readable line: "pcu_budget: 512 PCUs open + 256 for 'fc2' (matmul) > budget 640"; "not recorded" when absent.
std::string describeCut(const partition::CutReason& cut);
// The table `dfc inspect --why` prints: a header, then one line per boundary.
std::string formatBoundaries(const partition::Plan& plan);

}  // namespace dfc::analysis
