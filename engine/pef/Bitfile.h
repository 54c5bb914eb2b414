#pragma once
// A bitfile: the placed configuration of one hypersection, shared by all its
// section instances. Binary, little-endian, inside the PEF's `bitfiles` chunk:
//   "DFBT", u16 version, i32 hypersection, u16 name length + name,
//   u16 grid rows, u16 grid cols, u16 tiles, u32 unit count, u32 route count,
//   units  { u8 kind (0 PCU, 1 PMU), u16 row, u16 col, u16 tile, u32 config[2] },
//   routes { u32 from unit, u32 to unit, u16 hops },
// and from version 2 on (PEF 1.4) the routed network:
//   u16 tile rows, u16 tile cols, u16 tiles per chip, u16 link capacity,
//   u32 link count, links { u16 row, u16 col, u8 direction, u16 load }.
// A link is the directed one from the switch at (row, col) to its neighbour
// (direction 0 N, 1 E, 2 S, 3 W) on the same chip; its load is the nets the
// router negotiated onto it (kernelc/Router.h, Routing::linkUse); only links
// with a load are listed. Version 1 bitfiles read with capacity 0: not recorded.
// config[0] = role << 24 | stages << 16 | slice (16 bits); config[1] = IR node id.
// decodeBitfiles checks every count, coordinate and unit index, that no
// two units share a cell, and that every link joins two cells of one chip,
// before the result is used.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Error.h"

namespace dfc::pef {

struct BitfileUnit {
  uint8_t kind = 0;  // 0 PCU, 1 PMU
  uint16_t row = 0, col = 0, tile = 0;
  uint32_t config[2] = {0, 0};
};

struct BitfileRoute {
  uint32_t from = 0, to = 0;
  uint16_t hops = 0;
};

struct BitfileLink {
  uint16_t row = 0, col = 0;  // the switch it leaves
  uint8_t dir = 0;            // 0 N, 1 E, 2 S, 3 W
  uint16_t load = 0;          // routed nets on it
};

struct Bitfile {
  int32_t hypersection = 0;
  std::string name;
  uint16_t gridRows = 0, gridCols = 0, tiles = 0;
  std::vector<BitfileUnit> units;
  std::vector<BitfileRoute> routes;
  // The routed network (version 2); linkCapacity 0: not recorded (an older PEF).
  uint16_t tileRows = 0, tileCols = 0, tilesPerChip = 0, linkCapacity = 0;
  std::vector<BitfileLink> links;

  int pcus() const;
  int pmus() const;
  int64_t totalHops() const;
};

std::string encodeBitfiles(const std::vector<Bitfile>& bitfiles);
// `numHypersections`: bitfiles must refer to an existing hypersection, at most one each.
Status decodeBitfiles(std::string_view bytes, size_t numHypersections, std::vector<Bitfile>& out);

}  // namespace dfc::pef
