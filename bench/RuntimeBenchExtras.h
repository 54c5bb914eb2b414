#pragma once
// bench_runtime's side figures: how close the GEMM-bound sections come to the
// machine's FMA peak, the ceiling on what fusion can gain over -o0, and what
// the trace recorder costs per section call.
#include "pef/Pef.h"

namespace dfc::bench {

// Per -o0 section (one op each) of the given PEFs (either may be null): the
// GEMM-class ops' GFLOP/s on one thread, from the fastest of several steps,
// against `peakGflops`.
void printGemmEfficiency(const pef::Pef* gpt2o0, const pef::Pef* resnetO0, double peakGflops);

// How much faster -o3 could be than -o0 on one thread if fusion removed all
// its work outside the library GEMM/convolution calls (every kernel's
// libraryUs, support/LibraryClock.h): from every kernel's time, paired
// rounds of one step each, medians. Prints what a goal of `goal` x needs.
void printFusionCeiling(const char* label, const pef::Pef& o0, const pef::Pef& o3, double goal);

// Item 4 of issue 34: the host time per step outside library GEMM/convolution
// calls (total kernel time minus every kernel's libraryUs: im2col, Winograd
// transforms, epilogue loops and the depthwise kernel count outside) at -o0
// and at -o3, 1 thread, paired rounds, the kernels with the most of it, and
// the ratio against `goal` (-o3 / -o0 at most that), beside the ratio by the
// older rule that counted whole linalg and conv kernels as library.
void printOutsideLibrary(const char* label, const pef::Pef& o0, const pef::Pef& o3, double goal);

// ns per recorded section call and bytes per call in the written trace.
void printTraceOverhead(const pef::Pef& pef);

}  // namespace dfc::bench
