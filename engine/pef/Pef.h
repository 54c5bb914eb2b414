#pragma once
// The PEF: the executable `dfc run` takes. Binary, little-endian:
//   header: magic "PEF\0", u16 major, u16 minor, u32 flags, u32 chunk count
//   chunk table: per chunk { char kind[8], u64 offset, u64 size, u32 crc32 }
//   chunks: meta (JSON), graph (.dfir text, no weights), weights (binary),
//           sections (JSON), schedule (JSON), report (JSON), bitfiles (binary,
//           pef/Bitfile.h; optional: PEFs from before placement have none)
// Readers check every offset, size and checksum before use and refuse unknown
// major versions; writers write a temp file and rename it into place.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "pef/Bitfile.h"
#include "support/Error.h"

namespace dfc::pef {

constexpr uint16_t kPefMajorVersion = 1;
// 1: weight entries may be init recipes; 2: sections may carry "tiling" (tiled
// operators; absent in older PEFs, which read as untiled); 3: sections may carry
// "cut" (why each starts apart from the one before; absent reads as not recorded);
// 4: bitfiles are version 2, with the routed network (tile geometry, link
// capacity and each link's routed load; version 1 bitfiles read as not recorded).
constexpr uint16_t kPefMinorVersion = 4;

struct PefMeta {
  std::string pefName;
  std::string model;            // zoo name or model path
  std::string optLevel;         // o0 / o1 / o3
  std::string arch;             // arch preset name
  std::string compilerVersion;  // DFC_VERSION
  std::string createdAt;        // ISO-8601 UTC
  std::vector<std::string> args;  // the compile command line
  int64_t batchSize = 0;
  bool inference = false;
  // Training graphs: ids of the values the runtime feeds and reads.
  std::string imageInput;       // value name of the image batch
  std::string labelsInput;      // "" for inference
  std::string lrInput;          // "" for inference
  std::string lossOutput;       // "" for inference
  std::string logitsOutput;
  double defaultLr = 0.0;
  std::string task = "classification";  // or "language_model" (token ids in, next-token labels)
  // The effective compiler knobs as JSON when --compiler-configs-file changed them ("": the defaults).
  std::string compilerConfig;
  // --mac-human-decision: the decisions applied and each section's chip, as JSON (mapping/ApplyDecisions.h); "": none.
  std::string decisions;
  std::string spatialTiling;    // --num-spatial-batches N > 1: the tiling plan as JSON (passes/SpatialTiling.h)
  int worldSize = 0;            // compiled with --data-parallel -ws N: N (a minimum; mpirun picks the actual); 0: not
  // --decode (an inference PEF of a decoder's single-token step): the KV caches'
  // rows (> 0) and the i64[1] position input; the caches are the graph's
  // kv_cache_write state (ir/KvCache.h). 0 and "": not a decode step.
  int64_t kvCacheLen = 0;
  std::string positionInput;
  // Inference PEFs of ONNX models: the model's own names of graph.inputs and
  // graph.outputs, in order (`dfc run --input NAME=...` takes these; value
  // names are sanitized). Empty: the values' names are the model's.
  std::vector<std::string> inputNames, outputNames;
};

struct Pef {
  PefMeta meta;
  // What identifies the compiled program: FNV-1a 64 over the chunk table's
  // kind, size and CRC32 of every chunk but `meta` (so a PEF rewritten with a
  // new timestamp or command line keeps it, a recompile with other decisions
  // does not), 16 hex digits. Set by readPef from the file's chunk table;
  // a trace records it (`pef_hash`) so that views pair a trace only with the
  // PEF it ran. "" for a Pef built in memory and never written.
  std::string contentHash;
  ir::Graph graph;              // with initializers (weights chunk)
  partition::Plan plan;
  std::string reportJson;       // compile report (layers 1-3), a JSON object
  std::vector<Bitfile> bitfiles;  // one per hypersection, shared by its sections
};

// What a PEF is read for. Run: its declared host memory (weights, inputs and
// the largest intermediate) must fit this machine's budget, as the runtime
// will allocate it. View (dfstudio, dfc inspect): nothing is allocated beyond
// the file's own bytes, so a 7B model's PEF opens on a laptop; zero-filled
// weights stay a recipe instead of a buffer.
enum class PefUse { Run, View };

Status writePef(const Pef& pef, const std::string& path);
// The content hash of chunk table entries (kind, size, crc32), meta skipped.
struct ChunkDigest {
  std::string kind;
  uint64_t size = 0;
  uint32_t crc = 0;
};
std::string contentHash(const std::vector<ChunkDigest>& chunks);
Expected<Pef> readPef(const std::string& path, PefUse use = PefUse::Run);
// Same checks, from memory (used by tests for corrupted buffers).
Expected<Pef> parsePef(const std::vector<uint8_t>& bytes, const std::string& sourceName, PefUse use = PefUse::Run);

}  // namespace dfc::pef
