#pragma once
// The spatial tiling plan a PEF records (--num-spatial-batches), as the lines
// `dfc inspect` prints: bands, rows and halo per layer, and the trade-off.
#include <string>
#include <vector>

namespace dfc::driver {

// No lines for "" (an untiled PEF); one line saying so for JSON it cannot read.
std::vector<std::string> describeSpatialTiling(const std::string& json);

}  // namespace dfc::driver
