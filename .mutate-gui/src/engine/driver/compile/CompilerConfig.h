#pragma once
// --compiler-configs-file: a YAML (or JSON, its subset) file overriding the
// compiler's tuning knobs. Keys are "<group>.<knob>", written flat
// ("placer.max_moves: 100000") or nested ("placer: {max_moves: 100000}").
// Groups: fusion (decomposition limits), mapping (section-size caps), cost
// (cost-model constants), allreduce (gradient buckets), placer, router.
// One table (CompilerConfig.cpp) gives each knob's key, type, default, range
// and description: the reader, the error listing the known keys, `dfc inspect
// --config` and the table in docs/cli.md all come from it. An unknown key or a value
// out of range is refused naming the file, line and key. The effective
// configuration is stored in the PEF's meta.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/CollectiveModel.h"
#include "arch/CostModel.h"
#include "kernelc/Linker.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"
#include "support/Error.h"

namespace dfc::driver {

struct FusionConfig {
  int64_t matchStepsPerAnchor = partition::kMatchStepsPerAnchor;  // -o1 match search budget
  int maxSubgraphOps = 0;                                         // -o1/-o3: split longer subgraphs (0: no limit)
};

struct MappingConfig {
  int maxSectionOps = 0;   // operators per section at most (0: no cap)
  int maxSectionPcus = 0;  // PCUs per section at most, below the scaled chip (0: no cap)
};

struct AllreduceConfig {
  int64_t bucketKb = 0;                           // gradient bucket size (0: the collective cost model's choice)
  double bandwidthShare = arch::kBandwidthShare;  // the cost model's choice: transfer share of a bucket's allreduce
};

struct CompilerConfig {
  FusionConfig fusion;
  MappingConfig mapping;
  arch::CostConstants cost;
  AllreduceConfig allreduce;
  kernelc::LinkOptions link;  // placer effort and router knobs
};

// One row of the knob table.
struct CompilerKnobInfo {
  std::string key;
  std::string type;  // "bool", "integer" or "number"
  double defaultValue = 0;
  double min = 0, max = 0;
  std::string doc;
};
std::vector<CompilerKnobInfo> compilerKnobs();
// "key  type  default  [min, max]  doc" per knob: `dfc inspect --config` without a PEF, and docs/cli.md.
std::string compilerKnobTable();

Expected<CompilerConfig> loadCompilerConfig(const std::string& path);
// The same from text; errors name `path` and the line.
Expected<CompilerConfig> parseCompilerConfig(const std::string& text, const std::string& path);
// {"placer.max_moves":400000,...}: every knob's effective value.
std::string compilerConfigJson(const CompilerConfig& config);
// The knob's value in a stored compilerConfigJson text; its default when absent (an older PEF).
std::string storedKnobValue(const std::string& json, const CompilerKnobInfo& knob);

// The mapping knobs into the mapper's options.
void applyMappingConfig(const CompilerConfig& config, mapping::MappingOptions& options);

}  // namespace dfc::driver
