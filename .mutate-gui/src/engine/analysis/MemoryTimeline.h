#pragma once
// Memory over the schedule: at each section call of a step, the bytes resident
// per tier, by kind, from a PEF's graph and plan (no run needed). Plain data
// for `dfc inspect --memory` and a future view.
//   Weights (Params, Consts), optimizer state (Consts a step rewrites that are
//   not Params) and KV caches (ir/KvCache.h) live the whole step in HBM while
//   it holds them (in the order the step first reads them), DDR after that.
//   A tensor made and read within one section call stays on chip (SRAM) for
//   that call; one crossing a section boundary (inputs included) lives in the
//   fastest off-chip tier from the call that makes it to the last that reads
//   it (to the end of the step for outputs and new state).
//   The SRAM tier counts those tensors whole; the chip streams them through
//   the section's PMUs, whose bytes each point gives too (pmuBytes).
//   Host: the CPU run holds every intermediate over the same calls (the sum,
//   before the arena's reuse and fusion, so an upper bound of its arena).
//   Intermediates are gradients when a backward, reduce or accumulate operator
//   makes them, optimizer state when an optimizer operator does, else activations.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "ir/Graph.h"
#include "partition/Plan.h"

namespace dfc::analysis {

enum class MemTier { Sram, Hbm, Ddr, Host };
enum class MemKind { Weights, Activations, Gradients, OptimizerState, KvCache };
constexpr int kMemTiers = 4;
constexpr int kMemKinds = 5;
const char* memTierName(MemTier t);  // "sram", "hbm", "ddr", "host"
const char* memKindName(MemKind k);  // "weights", "activations", "gradients", "optimizer_state", "kv_cache"

// One tensor in one tier, live over calls [first, last] of the schedule.
struct LiveTensor {
  ir::ValueId value = ir::kNoValue;
  MemKind kind = MemKind::Activations;
  MemTier tier = MemTier::Hbm;
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
};

// Bytes resident during one section call.
struct MemoryPoint {
  int call = 0;                                                   // index into Plan::schedule
  int section = 0;                                                // its section id
  std::array<std::array<int64_t, kMemKinds>, kMemTiers> bytes{};  // [tier][kind]
  // The section's on-chip buffers: its estimated PMUs x the arch's bytes per PMU
  // (resident weights and the double-buffered tiles its tensors stream through).
  int pmus = 0;
  int64_t pmuBytes = 0;
  int64_t tierTotal(MemTier t) const;
};

struct TierPeak {
  int call = -1;  // -1: the tier holds nothing at any call
  int64_t bytes = 0;
  std::vector<size_t> tensors;  // indices into MemoryTimeline::tensors, live at the peak, largest first
};

struct MemoryTimeline {
  std::vector<LiveTensor> tensors;
  int pmuPeakCall = -1;  // the call whose section holds the most PMU bytes
  // Per tier, the chips' bytes (0: not given by the arch, or the host). Only
  // weights, state and KV caches are placed against it: a peak above it says
  // the step's activations do not fit as the graph keeps them.
  std::array<double, kMemTiers> capacity{};
  std::vector<MemoryPoint> points;  // one per call of the schedule
  std::array<TierPeak, kMemTiers> peaks;
};

MemoryTimeline memoryTimeline(const ir::Graph& graph, const partition::Plan& plan, const arch::ArchSpec& arch);

// `dfc inspect --memory`: the peak per tier with its `top` largest tensors; CSV: one row per call, tier and kind.
std::string formatMemory(const MemoryTimeline& m, const ir::Graph& graph, const partition::Plan& plan, size_t top = 10);
std::string memoryCsv(const MemoryTimeline& m, const partition::Plan& plan);

}  // namespace dfc::analysis
