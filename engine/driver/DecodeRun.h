#pragma once
// `dfc run --decode`: the stages of driver::run that a decode PEF goes
// through instead of training and evaluating. Prefill runs the prompt token by
// token through the decode step (no prefill graph in the PEF); then each step
// feeds the token picked from the previous step's logits. The trace's top row
// holds a "prefill" slice with a "prefill token" slice per prompt token and a
// "decode step" slice per generated token, each with its section calls nested.
// Private to driver/.
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// load-data for a decode run: the PEF's decode interface and the prompt, checked
// against its vocabulary and KV cache length before the run store is opened.
Status prepareDecode(RunState& s);
// decode: the prompt, then the generated tokens, traced and recorded.
Status decodeStage(RunState& s);

}  // namespace dfc::driver
