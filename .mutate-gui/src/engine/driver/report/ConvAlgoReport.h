#pragma once
// The algorithm each convolution of a PEF runs with on the host (GEMM or
// Winograd, runtime/ConvAlgo.h), as the lines `dfc inspect` prints.
#include <string>
#include <vector>

#include "pef/Pef.h"
#include "runtime/ConvAlgo.h"

namespace dfc::driver {

// No lines for a PEF without conv2d nodes; else a summary line and one line per conv.
std::vector<std::string> describeConvAlgorithms(const pef::Pef& pef, runtime::ConvAlgoRequest request);

}  // namespace dfc::driver
