// readPef / parsePef: every offset, size and checksum is checked before a
// chunk is touched; errors read "<file>: chunk '<kind>': <what>".
#include <zlib.h>

#include <map>

#include "ir/Parser.h"
#include "ir/TensorBudget.h"
#include "ir/Verifier.h"
#include "pef/PefFormat.h"
#include "pef/PefValidator.h"
#include "support/FileUtil.h"

namespace dfc::pef {
namespace {

constexpr const char* kRequired[] = {"meta", "graph", "weights", "sections", "schedule", "report"};

std::string readKind(const char raw[8]) {
  std::string kind;
  for (int i = 0; i < 8 && raw[i]; ++i) {
    auto u = static_cast<unsigned char>(raw[i]);
    kind += (u >= 0x20 && u < 0x7f) ? raw[i] : '?';
  }
  return kind;
}

}  // namespace

Expected<Pef> parsePef(const std::vector<uint8_t>& bytes, const std::string& sourceName, PefUse use) {
  auto fail = [&](const std::string& msg) { return makeError(sourceName + ": " + msg); };
  auto chunkFail = [&](const std::string& kind, const Error& e) { return e.withContext(sourceName + ": chunk '" + kind + "'"); };

  detail::ByteReader r(bytes.data(), bytes.size());
  char magic[4];
  uint16_t major = 0, minor = 0;
  uint32_t flags = 0, count = 0;
  if (!r.bytes(magic, 4) || std::memcmp(magic, detail::kMagic, 4) != 0) return fail("not a PEF file (bad magic)");
  if (!r.u16(major) || !r.u16(minor) || !r.u32(flags) || !r.u32(count))
    return fail("truncated header (" + std::to_string(bytes.size()) + " bytes)");
  std::string format = std::to_string(major) + "." + std::to_string(minor);
  if (major > kPefMajorVersion)
    return fail("made by a newer compiler (format " + format + "); this dfc reads " + std::to_string(kPefMajorVersion) + ".x");
  if (major < kPefMajorVersion)
    return fail("unsupported old format " + format + "; this dfc reads " + std::to_string(kPefMajorVersion) + ".x");
  if (count > detail::kMaxChunks) return fail("chunk table claims " + std::to_string(count) + " chunks");
  if (count * detail::kEntrySize > r.left())
    return fail("chunk table runs past the end of the file (" + std::to_string(bytes.size()) + " bytes)");

  std::map<std::string, std::string_view> chunks;
  std::vector<ChunkDigest> digests;
  for (uint32_t i = 0; i < count; ++i) {
    char raw[8];
    uint64_t offset = 0, size = 0;
    uint32_t crc = 0;
    if (!r.bytes(raw, 8) || !r.u64(offset) || !r.u64(size) || !r.u32(crc)) return fail("truncated chunk table");
    std::string kind = readKind(raw);
    if (offset > bytes.size() || size > bytes.size() - offset)
      return fail("chunk '" + kind + "': offset " + std::to_string(offset) + " + size " + std::to_string(size) +
                  " lies outside the file (" + std::to_string(bytes.size()) + " bytes)");
    const auto* data = reinterpret_cast<const char*>(bytes.data() + offset);
    if (static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(data), size)) != crc)
      return fail("chunk '" + kind + "': checksum mismatch");
    if (!chunks.emplace(kind, std::string_view(data, size)).second) return fail("chunk '" + kind + "' appears twice");
    digests.push_back({kind, size, crc});
  }
  for (const char* kind : kRequired)
    if (!chunks.count(kind)) return fail(std::string("missing chunk '") + kind + "'");

  Pef pef;
  pef.contentHash = contentHash(digests);
  if (auto st = detail::decodeMeta(chunks["meta"], pef.meta); !st) return chunkFail("meta", st.error());
  auto graph = ir::parseGraph(chunks["graph"], sourceName + ": chunk 'graph'");
  if (!graph) return graph.error();
  pef.graph = std::move(*graph);
  // Declared sizes against the memory budget before the weights allocate anything
  // (viewing allocates only weights whose bytes the file holds).
  if (use == PefUse::Run)
    if (auto st = ir::checkGraphBudget(pef.graph); !st) return chunkFail("graph", st.error());
  if (auto st = detail::decodeWeights(chunks["weights"], pef.graph, use == PefUse::Run); !st)
    return chunkFail("weights", st.error());
  if (auto st = ir::verifyGraph(pef.graph); !st) return chunkFail("graph", st.error());
  if (auto st = detail::decodeSections(chunks["sections"], pef.plan); !st) return chunkFail("sections", st.error());
  if (auto st = detail::decodeSchedule(chunks["schedule"], pef.plan); !st) return chunkFail("schedule", st.error());
  if (auto st = validatePlan(pef.plan, pef.graph); !st) return chunkFail("sections", st.error());
  if (auto st = validateSchedule(pef.plan); !st) return chunkFail("schedule", st.error());
  if (auto st = validateMeta(pef.meta, pef.graph, pef.plan); !st) return chunkFail("meta", st.error());
  std::string_view report = chunks["report"];
  if (!report.empty())
    if (auto st = detail::checkJson(report); !st) return chunkFail("report", st.error());
  pef.reportJson = std::string(report);
  if (auto it = chunks.find("bitfiles"); it != chunks.end())
    if (auto st = decodeBitfiles(it->second, pef.plan.hypersections.size(), pef.bitfiles); !st)
      return chunkFail("bitfiles", st.error());
  return pef;
}

Expected<Pef> readPef(const std::string& path, PefUse use) {
  auto text = support::readFile(path);
  if (!text) return text.error();
  std::vector<uint8_t> bytes(text->begin(), text->end());
  return parsePef(bytes, path, use);
}

}  // namespace dfc::pef
