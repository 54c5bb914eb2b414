#pragma once
// Atomic file writes: write `path`.tmp-XXXX, fsync, rename. A crash never
// leaves a half-written file under the final name.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Error.h"

namespace dfc::support {

Status writeFileAtomic(const std::string& path, std::string_view contents);
Expected<std::string> readFile(const std::string& path);  // error names the file
std::string isoTimestampUtc();                            // "2026-11-21T20:31:05Z"

}  // namespace dfc::support
