#pragma once
// The result of decomposition + mapping: which nodes run together as a
// section, which sections are instances of one hypersection, and the order
// of section calls. -o0, -o1 and -o3 all produce this same structure.
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/CutReason.h"

namespace dfc::partition {

enum class OptLevel { O0, O1, O3 };
std::string_view optLevelName(OptLevel level);  // "o0", "o1", "o3"

// Compile-time estimates for one section (layers 1 and 3 of the report).
struct SectionEstimate {
  double flop = 0;           // floating point operations per call
  double ddrBytes = 0;       // bytes read + written from DDR per call
  int pcus = 0;              // estimated PCUs
  int pmus = 0;              // estimated PMUs
  double computeUs = 0;      // time bound by compute
  double memoryUs = 0;       // time bound by DDR bandwidth
  double latencyUs = 0;      // estimated latency: max(compute, memory) + pipeline fill
};

// An operator whose resident operands do not fit a section's PMUs, run as
// `passes` passes of its section, each holding one tile (arch/OperatorTiling.h).
// The chip plan only: the host runtime runs the operator whole.
struct OperatorTiling {
  ir::NodeId node = 0;
  std::string dim;                  // "batch", "rows" (M), "columns" (N), "reduction" (K, partial sums)
  int passes = 1;
  bool gemm = false;                // tileShape is a GEMM's {batch, M, N, K} of one pass; else a resident tensor's tile
  std::vector<int64_t> tileShape;
  int pmusPerPass = 0;              // the operator's PMUs with one tile resident
  double extraDdrBytes = 0;         // operands re-streamed (or partial sums spilled) per call, beyond untiled
};

struct Section {
  int id = 0;
  std::string name;                 // "s3_conv2d" (unique); readable in traces
  ir::NodeRole type = ir::NodeRole::Forward;
  std::vector<ir::NodeId> nodes;    // in topological order
  std::string hyperfunction;        // scope of its nodes ("" = top level)
  int hypersection = 0;             // index into Plan::hypersections
  SectionEstimate estimate;
  std::vector<OperatorTiling> tiling = {};  // its tiled operators (empty: all fit); "= {}": older aggregate inits stay valid
  CutReason cut = {};                       // why it starts here, apart from the section before it
};

// One unique compiled pattern; sections with the same hypersection share its bitfile.
struct Hypersection {
  int id = 0;
  std::string name;                 // unique name, e.g. "hs0_conv2d"
  std::vector<int> sections;        // instances (section ids)
};

struct Plan {
  OptLevel level = OptLevel::O0;
  std::vector<Section> sections;
  std::vector<Hypersection> hypersections;
  std::vector<int> schedule;        // section ids in call order for one training/inference step
};

}  // namespace dfc::partition
