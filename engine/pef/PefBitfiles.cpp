#include <set>
#include <tuple>

#include "pef/Bitfile.h"
#include "pef/PefFormat.h"

namespace dfc::pef {

namespace {
constexpr char kBitMagic[4] = {'D', 'F', 'B', 'T'};
constexpr uint16_t kBitVersion = 2;  // 2: the routed network after the routes; 1 still reads
constexpr size_t kUnitBytes = 1 + 2 * 3 + 4 * 2;
constexpr size_t kRouteBytes = 4 + 4 + 2;
constexpr size_t kLinkBytes = 2 + 2 + 1 + 2;
constexpr int kDr[4] = {-1, 0, 1, 0};
constexpr int kDc[4] = {0, 1, 0, -1};

void encodeNetwork(const Bitfile& b, detail::ByteWriter& w) {
  w.u16(b.tileRows);
  w.u16(b.tileCols);
  w.u16(b.tilesPerChip);
  w.u16(b.linkCapacity);
  w.u32(static_cast<uint32_t>(b.links.size()));
  for (const auto& l : b.links) {
    w.u16(l.row);
    w.u16(l.col);
    w.u8(l.dir);
    w.u16(l.load);
  }
}

// The chip of cell (row, col) by the recorded tile geometry, or -1 off the tiles.
int chipOfCell(const Bitfile& b, int row, int col) {
  if (row < 0 || col < 0 || row >= b.gridRows || col >= b.gridCols) return -1;
  const int across = b.gridCols / b.tileCols;
  const int tile = (row / b.tileRows) * across + col / b.tileCols;
  return tile < b.tiles ? tile / b.tilesPerChip : -1;
}

Status decodeNetwork(detail::ByteReader& r, const std::string& where, Bitfile& b) {
  uint32_t links = 0;
  if (!r.u16(b.tileRows) || !r.u16(b.tileCols) || !r.u16(b.tilesPerChip) || !r.u16(b.linkCapacity) || !r.u32(links))
    return makeError(where + ": truncated network header");
  if (b.tileRows == 0 && b.tileCols == 0 && b.tilesPerChip == 0 && links == 0) return {};  // written without a network
  if (b.tileRows == 0 || b.tileCols == 0 || b.tilesPerChip == 0 || b.gridRows % b.tileRows != 0 ||
      b.gridCols % b.tileCols != 0)
    return makeError(where + ": tiles of " + std::to_string(b.tileRows) + "x" + std::to_string(b.tileCols) +
                     " do not divide its " + std::to_string(b.gridRows) + "x" + std::to_string(b.gridCols) + " grid");
  if (links > r.left() / kLinkBytes)
    return makeError(where + ": " + std::to_string(links) + " links run past the end of the chunk");
  b.links.resize(links);
  std::set<std::tuple<uint16_t, uint16_t, uint8_t>> seen;
  for (auto& l : b.links) {
    r.u16(l.row);
    r.u16(l.col);
    r.u8(l.dir);
    r.u16(l.load);
    const std::string at = "(" + std::to_string(l.row) + ", " + std::to_string(l.col) + ")";
    const int chip = chipOfCell(b, l.row, l.col);
    if (l.dir > 3 || chip < 0 || chipOfCell(b, l.row + kDr[l.dir], l.col + kDc[l.dir]) != chip)
      return makeError(where + ": link from " + at + " direction " + std::to_string(l.dir) +
                       " does not join two cells of one chip");
    if (!seen.insert({l.row, l.col, l.dir}).second)
      return makeError(where + ": link from " + at + " direction " + std::to_string(l.dir) + " listed twice");
  }
  return {};
}
}  // namespace

int Bitfile::pcus() const {
  int n = 0;
  for (const auto& u : units) n += u.kind == 0;
  return n;
}

int Bitfile::pmus() const { return static_cast<int>(units.size()) - pcus(); }

int64_t Bitfile::totalHops() const {
  int64_t n = 0;
  for (const auto& r : routes) n += r.hops;
  return n;
}

std::string encodeBitfiles(const std::vector<Bitfile>& bitfiles) {
  detail::ByteWriter w;
  w.u32(static_cast<uint32_t>(bitfiles.size()));
  for (const Bitfile& b : bitfiles) {
    w.bytes(kBitMagic, 4);
    w.u16(kBitVersion);
    w.u32(static_cast<uint32_t>(b.hypersection));
    w.u16(static_cast<uint16_t>(b.name.size()));
    w.bytes(b.name.data(), b.name.size());
    w.u16(b.gridRows);
    w.u16(b.gridCols);
    w.u16(b.tiles);
    w.u32(static_cast<uint32_t>(b.units.size()));
    w.u32(static_cast<uint32_t>(b.routes.size()));
    for (const auto& u : b.units) {
      w.u8(u.kind);
      w.u16(u.row);
      w.u16(u.col);
      w.u16(u.tile);
      w.u32(u.config[0]);
      w.u32(u.config[1]);
    }
    for (const auto& r : b.routes) {
      w.u32(r.from);
      w.u32(r.to);
      w.u16(r.hops);
    }
    encodeNetwork(b, w);
  }
  return std::move(w.str());
}

Status decodeBitfiles(std::string_view bytes, size_t numHypersections, std::vector<Bitfile>& out) {
  detail::ByteReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  uint32_t count = 0;
  if (!r.u32(count)) return makeError("truncated bitfile count");
  if (count > numHypersections)
    return makeError(std::to_string(count) + " bitfiles for " + std::to_string(numHypersections) + " hypersections");
  std::set<int32_t> seen;
  out.clear();
  for (uint32_t i = 0; i < count; ++i) {
    std::string where = "bitfile #" + std::to_string(i);
    Bitfile b;
    char magic[4];
    uint16_t version = 0, nameLen = 0;
    uint32_t hs = 0, units = 0, routes = 0;
    if (!r.bytes(magic, 4) || std::memcmp(magic, kBitMagic, 4) != 0) return makeError(where + ": bad magic");
    if (!r.u16(version) || version < 1 || version > kBitVersion)
      return makeError(where + ": unknown version " + std::to_string(version));
    if (!r.u32(hs) || !r.u16(nameLen) || nameLen > r.left()) return makeError(where + ": truncated header");
    b.hypersection = static_cast<int32_t>(hs);
    if (b.hypersection < 0 || static_cast<size_t>(b.hypersection) >= numHypersections)
      return makeError(where + ": refers to hypersection #" + std::to_string(b.hypersection));
    if (!seen.insert(b.hypersection).second)
      return makeError(where + ": second bitfile for hypersection #" + std::to_string(b.hypersection));
    b.name.resize(nameLen);
    if (!r.bytes(b.name.data(), nameLen) || !r.u16(b.gridRows) || !r.u16(b.gridCols) || !r.u16(b.tiles) ||
        !r.u32(units) || !r.u32(routes))
      return makeError(where + ": truncated header");
    where += " ('" + b.name + "')";
    if (units > r.left() / kUnitBytes || routes > (r.left() - units * kUnitBytes) / kRouteBytes)
      return makeError(where + ": " + std::to_string(units) + " units and " + std::to_string(routes) +
                       " routes run past the end of the chunk");
    b.units.resize(units);
    std::set<std::pair<uint16_t, uint16_t>> cells;
    for (auto& u : b.units) {
      r.u8(u.kind);
      r.u16(u.row);
      r.u16(u.col);
      r.u16(u.tile);
      r.u32(u.config[0]);
      r.u32(u.config[1]);
      if (u.kind > 1 || u.row >= b.gridRows || u.col >= b.gridCols || u.tile >= b.tiles)
        return makeError(where + ": unit at (" + std::to_string(u.row) + ", " + std::to_string(u.col) +
                         ") lies outside its " + std::to_string(b.gridRows) + "x" + std::to_string(b.gridCols) + " grid");
      if (!cells.insert({u.row, u.col}).second)
        return makeError(where + ": two units placed on (" + std::to_string(u.row) + ", " + std::to_string(u.col) + ")");
    }
    b.routes.resize(routes);
    for (auto& rt : b.routes) {
      r.u32(rt.from);
      r.u32(rt.to);
      r.u16(rt.hops);
      if (rt.from >= units || rt.to >= units) return makeError(where + ": route to a unit that does not exist");
    }
    if (version >= 2)
      if (auto st = decodeNetwork(r, where, b); !st) return st;
    out.push_back(std::move(b));
  }
  if (r.left() != 0) return makeError(std::to_string(r.left()) + " stray bytes after the last bitfile");
  return {};
}

}  // namespace dfc::pef
