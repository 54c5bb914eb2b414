#pragma once
// Speculative decoding on the chips (Leviathan, Kalman and Matias 2023,
// "Fast Inference from Transformers via Speculative Decoding"): a small
// draft model proposes k tokens one at a time, then the target model checks
// all of them in one step of k + 1 tokens (its weights and KV cache read
// once for all of them, which is why it pays on a memory-bound decoder).
// With a per-token acceptance probability a, a cycle yields on average
//   E(a, k) = (1 - a^(k+1)) / (1 - a)      tokens (k + 1 when a = 1)
// and takes k draft steps plus one verification:
//   cycle_us = k * draft_step_us + verify_step_us(k + 1 tokens)
//   tokens/s = batch * E(a, k) / cycle_us
// Both models are resident on the same chips: the draft's weights and cache
// take HBM first (it is read k times a cycle), the target's go after them.
// The acceptance rate is a property of the model pair and the text, not of
// the chip: the caller states it.
#include <vector>

#include "estimate/StepEstimate.h"

namespace dfc::estimate {

constexpr int kMaxDraftTokens = 16;

struct SpeculativeOptions {
  double acceptance = 0;  // a in [0, 1]: probability the target accepts one draft token
  int draftTokens = 0;    // k in 1..kMaxDraftTokens; 0: the k with the highest tokens/s
};

// One decode step's inputs (a PEF compiled with --inference --decode).
struct DecodeModel {
  const ir::Graph& graph;
  const partition::Plan& plan;
  int64_t batch = 1;
};

struct SpeculativePoint {
  int draftTokens = 0;
  double tokensPerCycle = 0, cycleUs = 0, verifyUs = 0, throughput = 0;
};

struct SpeculativeEstimate {
  double acceptance = 0;
  int draftTokens = 0;  // the k estimated (given, or the best)
  bool chosen = false;  // k was chosen as the best of 1..kMaxDraftTokens
  StepEstimate draft;   // one draft token
  StepEstimate target;  // the target alone, one token per step (no speculation)
  StepEstimate verify;  // the target checking k + 1 tokens
  double tokensPerCycle = 0, cycleUs = 0, throughput = 0;
  std::vector<SpeculativePoint> sweep;  // k = 1..kMaxDraftTokens
};

// E(a, k) above.
double expectedTokensPerCycle(double acceptance, int draftTokens);

// `options` as for estimateStep (chips, fusion, element bytes; tokensPerStep
// and reservedHbmBytes are set here). Errors name the flag at fault.
Expected<SpeculativeEstimate> estimateSpeculative(const DecodeModel& target, const DecodeModel& draft,
                                                  const arch::ArchSpec& arch, const EstimateOptions& options,
                                                  const SpeculativeOptions& speculative);

}  // namespace dfc::estimate
