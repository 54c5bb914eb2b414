#pragma once
// Trace files on disk, plain JSON or gzip-compressed (`.json.gz`: Perfetto and
// chrome://tracing open those too, and a LeNet epoch's trace shrinks ~10x).
// Reading decompresses within the memory budget (a gzip bomb is refused with
// the file's name; TraceText.h); writing compresses when the path ends in
// ".gz", and is atomic either way.
#include <string>
#include <string_view>

#include "profile/TraceText.h"
#include "support/Error.h"

namespace dfc::profile {

// The whole text, padded for simdjson: a plain file read in one piece, a
// gzip one inflated (every byte allocated counted against the budget).
Expected<PaddedBuffer> loadTraceFile(const std::string& path);
Status writeTraceFile(const std::string& path, std::string_view json);
bool isGzipPath(const std::string& path);  // ends in ".gz"

}  // namespace dfc::profile
