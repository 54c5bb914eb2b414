// writePef: lays the chunks out after the header and chunk table, each at a
// 64-byte boundary, with a zlib crc32 per chunk, and renames the file into place.
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ir/Printer.h"
#include "pef/PefFormat.h"
#include "support/FileUtil.h"

namespace dfc::pef {
namespace {

struct Chunk {
  const char* kind;
  std::string data;
};

std::string encodePef(const Pef& pef) {
  std::vector<Chunk> chunks;
  chunks.push_back({"meta", detail::encodeMeta(pef.meta)});
  // Weights and constants (optimizer state can be as large as the weights) live
  // in the binary weights chunk only; the graph chunk is structure.
  ir::PrintOptions structureOnly;
  structureOnly.withConstData = false;
  chunks.push_back({"graph", ir::printGraph(pef.graph, structureOnly)});
  chunks.push_back({"weights", detail::encodeWeights(pef.graph)});
  chunks.push_back({"sections", detail::encodeSections(pef.plan)});
  chunks.push_back({"schedule", detail::encodeSchedule(pef.plan)});
  chunks.push_back({"report", pef.reportJson});
  if (!pef.bitfiles.empty()) chunks.push_back({"bitfiles", encodeBitfiles(pef.bitfiles)});

  detail::ByteWriter w;
  w.bytes(detail::kMagic, 4);
  w.u16(kPefMajorVersion);
  w.u16(kPefMinorVersion);
  w.u32(0);  // flags
  w.u32(static_cast<uint32_t>(chunks.size()));
  size_t offset = detail::alignUp(detail::kHeaderSize + chunks.size() * detail::kEntrySize);
  for (const Chunk& c : chunks) {
    char kind[8] = {};
    std::memcpy(kind, c.kind, std::strlen(c.kind));
    w.bytes(kind, 8);
    w.u64(offset);
    w.u64(c.data.size());
    w.u32(static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(c.data.data()), c.data.size())));
    offset = detail::alignUp(offset + c.data.size());
  }
  for (const Chunk& c : chunks) {
    w.padTo(detail::kAlign);
    w.bytes(c.data.data(), c.data.size());
  }
  return std::move(w.str());
}

}  // namespace

std::string contentHash(const std::vector<ChunkDigest>& chunks) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  auto mix = [&h](const void* data, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 0x100000001b3ull;
  };
  for (const ChunkDigest& c : chunks) {
    if (c.kind == "meta") continue;
    char kind[8] = {};
    std::memcpy(kind, c.kind.data(), std::min<size_t>(c.kind.size(), 8));
    unsigned char size[8], crc[4];
    for (int b = 0; b < 8; ++b) size[b] = static_cast<unsigned char>(c.size >> (8 * b));
    for (int b = 0; b < 4; ++b) crc[b] = static_cast<unsigned char>(c.crc >> (8 * b));
    mix(kind, 8);
    mix(size, 8);
    mix(crc, 4);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

Status writePef(const Pef& pef, const std::string& path) { return support::writeFileAtomic(path, encodePef(pef)); }

}  // namespace dfc::pef
