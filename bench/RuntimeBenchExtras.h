#pragma once
// bench_runtime's side figures: how close the GEMM-bound sections come to the
// machine's FMA peak, and what the trace recorder costs per section call.
#include "pef/Pef.h"

namespace dfc::bench {

// Per -o0 section (one op each) of the given PEFs (either may be null): the
// GEMM-class ops' GFLOP/s on one thread, from the fastest of several steps,
// against `peakGflops`.
void printGemmEfficiency(const pef::Pef* gpt2o0, const pef::Pef* resnetO0, double peakGflops);

// ns per recorded section call and bytes per call in the written trace.
void printTraceOverhead(const pef::Pef& pef);

}  // namespace dfc::bench
