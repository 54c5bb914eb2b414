#pragma once
// `dfc run --decode --pef TARGET --draft-pef DRAFT`: greedy speculative
// decoding on the host (Leviathan et al., 2023). TARGET is a decode step of
// K + 1 tokens (dfc compile --decode-tokens K+1), DRAFT a one-token decode
// step of the same vocabulary. Each cycle the draft proposes K tokens one
// step at a time from the latest token x; the target takes [x, d1..dK] in one
// step and its argmax at each of the K + 1 positions; the longest prefix of
// drafts the target agrees with is kept, plus the target's own next token, so
// the text is exactly the target's greedy decode. Cache rows written for
// rejected drafts lie past the kept ones and are written over by the next
// cycle (every read stops at the step's own positions). Sampling with a
// temperature is not built: greedy only. Private to driver/.
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// load-data with --draft-pef: the target takes several tokens a step, the
// draft one, batch 1 both, one vocabulary, caches long enough; the draft's
// executor made like the target's.
Status prepareSpeculative(RunState& s);
// decode with --draft-pef: prefill both models, then draft-and-verify cycles
// until --max-new-tokens tokens; the trace has "draft step" and "verify step"
// slices; the run store gets acceptance_rate (per checked draft: accepted /
// (accepted + rejected), the alpha of dfc estimate --acceptance) and
// tokens_per_verification.
Status speculativeStage(RunState& s);

}  // namespace dfc::driver
