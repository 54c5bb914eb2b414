#include "arch/FanIn.h"

#include <algorithm>

namespace dfc::arch {

int linkTracks(const ArchSpec& arch) { return arch.networkLinkTracks > 0 ? arch.networkLinkTracks : kDefaultLinkTracks; }

int unitFanInBound(const ArchSpec& arch) { return std::max(2, kUnitLinks * linkTracks(arch) / kFanInMargin); }

int combineTreeUnits(int fanIn, int bound) {
  bound = std::max(2, bound);
  int units = 0;
  while (fanIn > bound) {
    fanIn = (fanIn + bound - 1) / bound;
    units += fanIn;
  }
  return units;
}

}  // namespace dfc::arch
