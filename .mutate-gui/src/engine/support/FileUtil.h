#pragma once
// Atomic file writes: write `path`.tmp-XXXXXX, fsync, rename, fsync the
// folder. A crash never leaves a half-written file under the final name, and
// only a regular file is ever replaced (support/SafePath.h).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Error.h"

namespace dfc::support {

Status writeFileAtomic(const std::string& path, std::string_view contents);
// A regular file of at most the memory budget; errors name the file.
Expected<std::string> readFile(const std::string& path);
std::string isoTimestampUtc();                            // "2026-11-21T20:31:05Z"

}  // namespace dfc::support
