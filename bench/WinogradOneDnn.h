#pragma once
// bench_winograd's oneDNN part: oneDNN's Winograd convolution against its
// direct one (what auto chose before onednn-winograd) on ResNet's 3x3
// stride-1 layers at batch 1 and 8 and on the crossover probes that set the
// auto rule (runtime/ConvAlgo.cpp oneDnnWinogradWins), with the error of each
// against double sums.
namespace dfc::bench {

void oneDnnWinogradLayers(int threads, int repeats);
void oneDnnWinogradError();

}  // namespace dfc::bench
