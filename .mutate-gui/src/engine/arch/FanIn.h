#pragma once
// How many nets one kernel unit may be fed by, from the on-chip network: each
// unit's switch has kUnitLinks incoming links of `network_link_tracks` routes
// each. The bound is a third of that (kFanInMargin), so that the router can
// still negotiate: through traffic shares those links, a unit on a tile's edge
// has only three of them, and the links one hop further out carry the same
// nets converging. (Half was not enough: gpt2 at 768 wide kept 37 overused
// links around a section's staging PMUs; a third routes every section.) The lowering inserts combine trees
// (reduction PCUs, staging PMUs) wherever a unit would be fed by more; the
// cost model counts those units so that a section that maps also places.
#include "arch/ArchSpec.h"

namespace dfc::arch {

inline constexpr int kDefaultLinkTracks = 8;  // routes per link when the arch does not say (the router's link capacity too)
inline constexpr int kUnitLinks = 4;          // incoming links of a unit's switch (N, E, S, W)
inline constexpr int kFanInMargin = 3;        // the bound is links x tracks / this

// Routes one network link carries: network_link_tracks, else kDefaultLinkTracks.
int linkTracks(const ArchSpec& arch);
// Most distinct nets (source units) one unit may be fed by; at least 2.
int unitFanInBound(const ArchSpec& arch);
// Units of a combine tree that brings `fanIn` sources into one sink through at
// most `bound` nets per unit: levels of ceil(n / bound) units until n <= bound.
int combineTreeUnits(int fanIn, int bound);

}  // namespace dfc::arch
