#pragma once
// The chip-time estimate of one step of a compiled model (dfc estimate, the
// Schedule screen): per section call, the FLOP, the bytes each memory tier
// serves and the chip-to-chip traffic, each turned into time at its own
// figure from the arch file; then the step, with the section calls either
// streamed as one fused, pipelined call (weight loads of the next section
// overlap compute and communication of this one) or one call per section.
//
// Per chip, for section s (N chips tensor parallel, estimate/TensorParallel.h):
//   compute_us  = FLOP_s / N_s / peak_tflops
//   tier_us[t]  = bytes_s,t / tier_gbps[t]    weights and KV cache in the tier
//                 MemoryTiers placed them in; activations crossing the
//                 section boundary in the fastest off-chip tier
//   memory_us   = max over tiers (HBM and DDR have their own channels)
//   comm_us     = its all-reduces and all-gathers over the chip link
//                 (arch/CollectiveModel: best of ring and pipelined tree)
//   fill_us     = ops x PCU stages / clock (one pass through the pipeline)
// Step, per-section calls:  sum over calls of
//                 call_us + max(compute, memory) + comm + fill
// Step, fused (default, "block"): call_us once + a two-resource pipeline:
//                 the memory stream loads section i+1 while section i
//                 computes (one section ahead); section i computes as its
//                 loads stream in, finishes no earlier than they do, then
//                 runs its collectives (they sit on the activations' path).
//                 The whole step is one call: the outer loop over layers is
//                 pipelined too (SambaNova's "kernel looping").
// Step, one call per layer ("layer"): the same pipeline inside each call of
//                 a decoder layer (consecutive sections of one top-level
//                 hyperfunction, "layers.3"), drained at each call boundary
//                 (the next layer's weights start loading only when this
//                 call has finished), call_us per call: fused decoder blocks
//                 without kernel looping.
// A step of T tokens of one sequence (tokensPerStep, a speculative
// verification): FLOP, activations and collectives scale with T; weights and
// the KV cache are read once for all T.
// Nothing is scaled by a fitted factor: every figure is the arch file's.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/ArchSpec.h"
#include "ir/Graph.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::estimate {

enum class Fusion { Block, Layer, Section };
const char* fusionName(Fusion f);  // "block", "layer", "section"
std::optional<Fusion> fusionFromName(std::string_view name);

enum class Tier { Sram, Hbm, Ddr };

constexpr int kMaxTokensPerStep = 64;  // EstimateOptions::tokensPerStep at most
const char* tierName(Tier t);  // "SRAM", "HBM", "DDR"

struct EstimateOptions {
  int chips = 1;                // tensor parallel over this many chips (inference)
  Fusion fusion = Fusion::Block;
  double elementBytes = 2;      // bytes per stored element on the chip (bf16), the host graph's f32 scaled to it
  // Decode from a one-token inference graph: each attention reads a KV cache
  // of this many positions (0: the graph as it is).
  int64_t kvCacheLen = 0;
  // The graph is a decode step with its KV cache as persistent state (a PEF
  // compiled with --decode): throughput in tokens/s.
  bool decode = false;
  double sectionCallUs = 5;     // ASSUMPTION: host-to-chip launch and sync of one section call
  // Tokens of one sequence each step processes (a decode step only): > 1 is a
  // speculative decoding verification of T - 1 draft tokens plus one.
  int tokensPerStep = 1;
  // HBM per chip already taken by another model resident on the same chips
  // (a speculative draft model): this one's weights go to HBM after it.
  double reservedHbmBytes = 0;
};

struct SectionCost {
  int section = 0;              // Plan section id
  std::string name;
  std::string layer;            // top-level hyperfunction ("layers.3"; "" at top level): Fusion::Layer's calls
  double flop = 0;              // per chip
  double tierBytes[3] = {0, 0, 0};  // per chip, by Tier (SRAM: 0, its traffic is on chip)
  double linkBytes = 0;         // per chip, sent over the chip link
  double computeUs = 0, memoryUs = 0, commUs = 0, fillUs = 0;
  double tierUs[3] = {0, 0, 0};
  double callUs = 0;            // its time as a call of its own (Fusion::Section)
};

struct StepEstimate {
  std::string arch;             // arch name (one chip's figures below)
  double elementBytes = 2;
  int64_t kvCacheLen = 0;
  std::string kind;             // "decode", "inference" or "training"
  std::string unit;             // "tokens/s" or "samples/s"
  int64_t batch = 1;
  int chips = 1;
  int tokensPerStep = 1;
  Fusion fusion = Fusion::Block;
  int calls = 0;                // section calls the step is launched as (Fusion: 1, one per layer, one per section)
  std::vector<SectionCost> sections;  // in schedule order
  double computeUs = 0, memoryUs = 0, commUs = 0, overheadUs = 0;  // sums over the calls
  double tierUs[3] = {0, 0, 0};
  double stepUs = 0;
  double throughput = 0;        // unit per second
  std::string bound;            // "compute", "memory (HBM)", "memory (DDR)", "communication", "call overhead"
  // Shares of the chip's figures over the step (each <= 1).
  double flopShare = 0, linkShare = 0;
  double tierShare[3] = {0, 0, 0};
  // Where the resident bytes live, per chip.
  double residentBytes[3] = {0, 0, 0};
  double tierCapacity[3] = {0, 0, 0};  // 0: no such tier
  double peakTflops = 0, linkGbps = 0;
  double tierGbps[3] = {0, 0, 0};
};

// `arch` is one chip (loadArch, not scaleArch'd by chips). Errors name the
// option at fault (more chips than the tensor parallel split allows, a
// training graph with chips > 1, resident bytes beyond HBM + DDR).
Expected<StepEstimate> estimateStep(const ir::Graph& graph, const partition::Plan& plan, bool inference,
                                    int64_t batch, const arch::ArchSpec& arch, const EstimateOptions& options);

}  // namespace dfc::estimate
