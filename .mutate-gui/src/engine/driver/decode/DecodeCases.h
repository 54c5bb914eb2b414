#pragma once
// The published decode speeds the estimate is checked against (issue 18):
// Llama 3.1 Instruct 8B and 70B, 16-bit weights, on 16 SN40L chips, user
// throughput in output tokens/s from artificialanalysis.ai as quoted by
// SambaNova's blog "Why SambaNova's SN40L Chip is The Best for Inference"
// (2024-09-10): 8B 1042, 70B 457. Batch 1, a 2048-token context.
// Shared by tests/unit/estimate and bench/bench_decode_estimate so both
// compile and estimate exactly the same way.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "driver/compile/CompileOptions.h"
#include "estimate/Speculative.h"
#include "estimate/StepEstimate.h"
#include "pef/Pef.h"

namespace dfc::driver {

struct DecodeCase {
  std::string label;          // "llama3.1-8b"
  double publishedTokensPerS = 0;
  int layers = 0, hidden = 0, heads = 0, kvHeads = 0, intermediate = 0, vocab = 0;
  // The case whose model drafts for this one under speculative decoding
  // ("": plain decode). The rule: the smallest model of the family released
  // before the published figure, when it is smaller than this one.
  std::string draft;
};

constexpr int kDecodeChips = 16;
constexpr int64_t kDecodeContext = 2048;
// ASSUMPTION: per-token acceptance of a Llama 3.1 8B draft by the 70B target
// (Leviathan et al.'s alpha). Published measurements of same-family drafts
// with greedy decoding put it near 0.8-0.9 (see docs/benchmarks.md, issue 18); 0.8 is
// the middle of that range, lowered for sampled text. The bench varies it.
constexpr double kDraftAcceptance = 0.8;

std::vector<DecodeCase> publishedDecodeCases();

// The decode step of `c` (dfc compile --inference --decode --kv-cache-len
// kDecodeContext, batch 1), compiled to its section plan (no placement) for
// sn40l on kDecodeChips chips; output under `folder`.
Expected<pef::Pef> compileDecodeCase(const DecodeCase& c, const std::string& folder);

// The estimate options every case uses (tensor parallel over kDecodeChips,
// a decode step, bf16, block fusion).
estimate::EstimateOptions decodeEstimateOptions();

// A case as it was served: plain decode, or speculative with its draft.
struct ServedEstimate {
  double tokensPerS = 0;
  estimate::StepEstimate plain;                          // the model alone
  std::optional<estimate::SpeculativeEstimate> speculative;  // with its draft
};

// `pefs` holds the compiled step of every case by label (the draft's too).
// acceptance < 0: plain decode even when the case has a draft.
Expected<ServedEstimate> estimateServed(const DecodeCase& c, const std::map<std::string, pef::Pef>& pefs,
                                        const arch::ArchSpec& arch, const estimate::EstimateOptions& options,
                                        double acceptance = kDraftAcceptance, int draftTokens = 0);

}  // namespace dfc::driver
