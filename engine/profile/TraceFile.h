#pragma once
// Trace files on disk, plain JSON or gzip-compressed (`.json.gz`: Perfetto and
// chrome://tracing open those too, and a LeNet epoch's trace shrinks ~10x).
// Reading decompresses within the memory budget (a gzip bomb is refused with
// the file's name); writing compresses when the path ends in ".gz", and is
// atomic either way.
#include <simdjson.h>

#include <string>
#include <string_view>

#include "support/Error.h"

namespace dfc::profile {

Expected<simdjson::padded_string> loadTraceFile(const std::string& path);
Status writeTraceFile(const std::string& path, std::string_view json);
bool isGzipPath(const std::string& path);  // ends in ".gz"
bool isGzip(std::string_view bytes);       // starts with gzip's magic
// Inflates a gzip stream; output past the memory budget, corrupt or truncated
// data are errors naming `name`.
Expected<std::string> gunzipWithin(std::string_view bytes, const std::string& name);

}  // namespace dfc::profile
