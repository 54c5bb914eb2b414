#pragma once
// A bitfile: the placed configuration of one hypersection, shared by all its
// section instances. Binary, little-endian, inside the PEF's `bitfiles` chunk:
//   "DFBT", u16 version, i32 hypersection, u16 name length + name,
//   u16 grid rows, u16 grid cols, u16 tiles, u32 unit count, u32 route count,
//   units  { u8 kind (0 PCU, 1 PMU), u16 row, u16 col, u16 tile, u32 config[2] },
//   routes { u32 from unit, u32 to unit, u16 hops }.
// config[0] = role << 24 | stages << 16 | slice (16 bits); config[1] = IR node id.
// decodeBitfiles checks every count, coordinate and unit index, and that no
// two units share a cell, before the result is used.
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

struct Bitfile {
  int32_t hypersection = 0;
  std::string name;
  uint16_t gridRows = 0, gridCols = 0, tiles = 0;
  std::vector<BitfileUnit> units;
  std::vector<BitfileRoute> routes;

  int pcus() const;
  int pmus() const;
  int64_t totalHops() const;
};

std::string encodeBitfiles(const std::vector<Bitfile>& bitfiles);
// `numHypersections`: bitfiles must refer to an existing hypersection, at most one each.
Status decodeBitfiles(std::string_view bytes, size_t numHypersections, std::vector<Bitfile>& out);

}  // namespace dfc::pef
