// Bitfile version 2 (PEF 1.4) records the routed network: tile geometry, link
// capacity and each loaded link. It round-trips; a version 1 bitfile (no
// network) still reads, as not recorded; a link that leaves its chip or the
// grid, or one listed twice, is refused by name.
#include <catch2/catch.hpp>

#include "pef/Bitfile.h"

using namespace dfc;

namespace {

// One 2x2 tile per chip, two chips side by side: a 2x4 grid.
pef::Bitfile twoChips() {
  pef::Bitfile b;
  b.name = "hs0";
  b.gridRows = 2, b.gridCols = 4, b.tiles = 2;
  b.tileRows = 2, b.tileCols = 2, b.tilesPerChip = 1, b.linkCapacity = 8;
  pef::BitfileUnit u;
  b.units = {u};
  b.links = {{0, 0, 1, 3}, {1, 3, 0, 9}};  // (0,0) E: 3 nets; (1,3) N: 9 nets
  return b;
}

Status decodeOne(const pef::Bitfile& b, std::vector<pef::Bitfile>& out) {
  return pef::decodeBitfiles(pef::encodeBitfiles({b}), 1, out);
}

}  // namespace

TEST_CASE("a bitfile's routed network survives encoding", "[pef][bitfile]") {
  std::vector<pef::Bitfile> out;
  REQUIRE(decodeOne(twoChips(), out).ok());
  REQUIRE(out.size() == 1);
  const pef::Bitfile& b = out[0];
  CHECK(b.tileRows == 2);
  CHECK(b.tileCols == 2);
  CHECK(b.tilesPerChip == 1);
  CHECK(b.linkCapacity == 8);
  REQUIRE(b.links.size() == 2);
  CHECK(b.links[1].row == 1);
  CHECK(b.links[1].col == 3);
  CHECK(b.links[1].dir == 0);
  CHECK(b.links[1].load == 9);
}

TEST_CASE("a version 1 bitfile reads with its network not recorded", "[pef][bitfile]") {
  pef::Bitfile b = twoChips();
  std::string bytes = pef::encodeBitfiles({b});
  bytes.resize(bytes.size() - (4 * 2 + 4 + 2 * 7));  // the network trailer
  bytes[8] = 1;                                      // after the count (4) and magic (4): the version
  std::vector<pef::Bitfile> out;
  REQUIRE(pef::decodeBitfiles(bytes, 1, out).ok());
  CHECK(out[0].linkCapacity == 0);
  CHECK(out[0].links.empty());
  CHECK(out[0].units.size() == 1);
  bytes[8] = 3;  // a version from the future
  CHECK_FALSE(pef::decodeBitfiles(bytes, 1, out).ok());
}

TEST_CASE("links that leave their chip or grid, or come twice, are refused", "[pef][bitfile]") {
  std::vector<pef::Bitfile> out;
  pef::Bitfile crossing = twoChips();
  crossing.links = {{0, 1, 1, 1}};  // (0,1) E enters (0,2): the other chip
  auto st = decodeOne(crossing, out);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("link from (0, 1) direction 1 does not join two cells of one chip"));
  pef::Bitfile within = twoChips();
  within.links = {{0, 0, 1, 1}};  // (0,0) E enters (0,1): the same chip
  CHECK(decodeOne(within, out).ok());
  pef::Bitfile off = twoChips();
  off.links = {{0, 0, 0, 1}};  // north of row 0
  CHECK_FALSE(decodeOne(off, out).ok());
  pef::Bitfile twice = twoChips();
  twice.links = {{0, 0, 1, 1}, {0, 0, 1, 2}};
  st = decodeOne(twice, out);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("listed twice"));
  pef::Bitfile badTiles = twoChips();
  badTiles.tileCols = 3;  // does not divide 4 columns
  CHECK_FALSE(decodeOne(badTiles, out).ok());
}
