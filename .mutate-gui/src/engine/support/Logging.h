#pragma once
// Logging setup shared by dfc and dfstudio: spdlog with a console sink and,
// with --log-dir, a file sink that receives warnings and errors.
#include <spdlog/spdlog.h>

#include <string>

#include "support/Error.h"

namespace dfc::support {

struct LogOptions {
  bool verbose = false;  // -v: info-level detail (per-pass, per-section lines)
  bool debug = false;    // --debug: debug-level logging
  std::string logDir;    // --log-dir: directory for dfc_warnings.log (empty: none)
};

// Configures the default logger. Returns an empty string or an error message
// (e.g. the log directory cannot be created).
std::string setupLogging(const LogOptions& options);

// Adds a sink writing everything at info level or above into `path` (the compile
// log), under the output-file policy (support/LogFileSink.h); an error names the
// file when it may not be written. Removed again by removeFileSink(path).
Status addFileSink(const std::string& path);
void removeFileSink(const std::string& path) noexcept;

}  // namespace dfc::support
