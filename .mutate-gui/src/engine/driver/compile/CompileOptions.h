#pragma once
// The options of one compile, shared by `dfc compile` and dfstudio: both build
// a CompileOptions, check it with validate() before starting, and record
// toArgs() (the canonical `dfc compile` command line for these options) in the
// PEF's meta and the run store, so a compile from either can be repeated.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "autograd/Autograd.h"
#include "driver/compile/CompilerConfig.h"
#include "mapping/Decisions.h"
#include "mapping/SectionMapper.h"
#include "partition/CompilerMode.h"
#include "partition/FusionRules.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::driver {

// What CompileOptions::resolve() makes of the options: the compile stages use
// these parsed forms, never the option strings.
struct ResolvedOptions {
  std::string pefName;                 // the option, or the model file's stem
  std::string outputFolder;            // the option, or out/<pef-name>
  partition::CompilerMode mode = partition::CompilerMode::Default;
  autograd::Optimizer optimizer = autograd::Optimizer::Momentum;
  arch::ArchSpec arch;                 // loaded and scaled by --n-chips / --num-tiles
  mapping::MappingOptions scales;      // the resource scaling factors (the other fields default)
  std::string o1RuleList;              // -o1: the list used (the option, or the mode's default)
  partition::FusionRuleList rules;     // -o1: that list, loaded; empty otherwise
  CompilerConfig config;               // the defaults, or --compiler-configs-file's overrides
  mapping::DecisionFile decisions;     // --mac-human-decision, read (empty without one)
};

struct CompileOptions {
  std::string model;                 // zoo name, or path to a .dfir/.onnx file
  std::string pefName;               // default: the model name
  std::string outputFolder;          // default: ./out/<pef-name>
  bool inference = false;            // forward only; no loss, gradients or optimizer
  // --decode --kv-cache-len N (with --inference, zoo decoders): the single-token
  // step of the decoder with K and V caches of N rows per layer (ir/KvCache.h).
  bool decode = false;
  int64_t kvCacheLen = 0;
  // --decode-tokens T: the step takes T tokens of a sequence at consecutive
  // positions (a speculative decoding target checks T - 1 draft tokens plus one).
  int64_t decodeTokens = 1;
  int64_t batchSize = 32;
  // --input-shape NAME=DxDx... (repeatable), .onnx models: the shapes of inputs
  // with dynamic dimensions (onnx/InputShapes.h).
  std::vector<std::string> inputShapes;
  partition::OptLevel level = partition::OptLevel::O3;
  std::string o1RuleList;            // -o1: built-in fusion rule list name or YAML file ("": the mode's default); else unused
  // --compiler-mode: "" (generic) or "nlp" (transformers; partition/CompilerMode.h lists what it changes:
  // -o1 rule list `nlp`, -o3 hypersections on, -o3 attention blocks kept within one section). Else an error.
  std::string compilerMode;
  bool enableHypersection = false;     // -o3: compile hyperfunctions independently and dedupe
  // false: compile every hypersection instance again (same result, more time);
  // bench_hypersections measures the saving with it. Not a dfc flag (not in toArgs).
  bool reuseHypersections = true;
  std::string arch = "native";       // preset name, "native" or a YAML file
  int nChips = 1;                    // --n-chips 1..8 (1..16 inference): sections may span chips (PCIe cost)
  int numTiles = 0;                  // --num-tiles 1|2|4|8 per chip (0: all)
  std::vector<std::string> scalingFactors;  // --resources-scaling-factors: 3 or 4 values (empty: all 1)
  std::map<std::string, int64_t> modelParams;  // zoo model flags: num_layers, hidden_size, num_heads, seq_len, ...
  std::string optimizer = "momentum";  // sgd | momentum | adam
  double learningRate = 0.01;        // default stored in the PEF; `run --lr` overrides
  int gradAccumulationSteps = 1;     // --grad-accumulation-steps K: K micro-batches of -b per optimizer step
  int numSpatialBatches = 1;         // --num-spatial-batches N: image tiles along H (passes/SpatialTiling.h)
  std::string
      compilerConfigsFile;  // --compiler-configs-file: YAML/JSON knob overrides (driver/compile/CompilerConfig.h)
  bool allowOveruse = false;         // --allow-overuse (debug): write a PEF whose routing is over capacity
  bool macV2 = false;                // --mac-v2: the legacy mapping path (driver/compile/LegacyMapping.h)
  // --mac-human-decision FILE: operators pinned together, forced cuts and (with
  // --model-parallel) sections assigned to chips (mapping/Decisions.h).
  std::string macHumanDecision;
  bool modelParallel = false;        // --model-parallel: sections on the chips the decisions file names
  uint64_t seed = 42;                // weight initialization
  bool debug = false;                // dump the IR after each stage into the output folder
  std::string dbPath;                // run store ("" = default path, "-" = don't record)
  // --data-parallel -ws N: gradient allreduce sections between backward and
  // optimizer for N >= 2 replicas (a minimum; mpirun picks the actual number).
  bool dataParallel = false;
  int worldSize = 0;                 // -ws/--world-size; 0: not given
  int64_t allreduceBucketKb = 0;     // --allreduce-bucket-kb: gradient bucket size (0: the cost model's choice)
  // The command line the PEF and the run store record (dfc and dfstudio set it
  // to toArgs()). Not an option itself: toArgs leaves it out.
  std::vector<std::string> args;

  // The options in their parsed forms, with the arch file and the -o1 rule
  // list loaded. An error is one line naming the flag at fault.
  Expected<ResolvedOptions> resolve() const;
  // resolve() for its errors only: what dfc and dfstudio check before starting.
  Status validate() const;
  // {"dfc", "compile", "--model", ...}: dfc parses it back into these options
  // (args and reuseHypersections aside; o1RuleList only at -o1, where it is used).
  std::vector<std::string> toArgs() const;

  bool operator==(const CompileOptions&) const = default;
};

Expected<partition::OptLevel> parseOptLevel(const std::string& text);  // "o0" / "-o0" / "0"

// The zoo model flags dfc takes ("--num-layers" for the parameter "num_layers").
const std::vector<std::string>& modelParamFlags();
std::string modelParamFlag(const std::string& param);  // "num_layers" -> "--num-layers"
std::string modelParamName(const std::string& flag);   // "--num-layers" -> "num_layers"

}  // namespace dfc::driver
