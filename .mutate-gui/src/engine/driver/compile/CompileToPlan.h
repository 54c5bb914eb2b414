#pragma once
// The compile up to its section plan (validate .. map), without placement,
// bitfiles or a PEF file: what the estimator needs, in about a second even at
// Llama-70B shapes on 16 chips (placement of those takes minutes). Used by
// the estimate tests and bench/bench_decode_estimate.
#include "driver/compile/CompileOptions.h"
#include "pef/Pef.h"

namespace dfc::driver {

// The PEF as `dfc compile` would write it, less bitfiles and report; the
// compile log goes to the options' output folder as usual.
Expected<pef::Pef> compileToPlan(const CompileOptions& options);

}  // namespace dfc::driver
