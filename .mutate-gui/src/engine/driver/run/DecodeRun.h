#pragma once
// `dfc run --decode`: the stages of driver::run that a decode PEF goes
// through instead of training and evaluating. Prefill runs the prompt token by
// token through the decode step (no prefill graph in the PEF); then each step
// feeds the token picked from the previous step's logits. The trace's top row
// holds a "prefill" slice with a "prefill token" slice per prompt token and a
// "decode step" slice per generated token, each with its section calls nested.
// Private to driver/.
#include <cstdint>
#include <vector>

#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// load-data for a decode run: the PEF's decode interface and the prompt, checked
// against its vocabulary and KV cache length before the run store is opened.
Status prepareDecode(RunState& s);
// decode: the prompt, then the generated tokens, traced and recorded.
Status decodeStage(RunState& s);

// Shared with the speculative run (driver/run/SpeculativeRun.h):
// one step of the run's PEF with `tokens` at `position`, a slice `name` on the
// top row around its section calls;
Status tracedDecodeStep(RunState& s, const std::vector<int64_t>& tokens, int64_t position, const char* name);
// the chip latency of one step (the schedule's section estimates);
double estimatedStepUs(const pef::Pef& pef);
// the prompt and generated tokens as lines of the run's log.
void reportDecodeTokens(RunState& s);

}  // namespace dfc::driver
