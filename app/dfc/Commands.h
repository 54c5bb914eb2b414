#pragma once
// The dfc subcommands. Each returns the process exit status:
// 0 success, 2 bad input (one line naming the culprit), 1 internal failure.
#include <string>
#include <vector>

#include "support/Error.h"

namespace dfc::cli {

int compileCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int inspectCommand(const std::vector<std::string>& args);
int reportCommand(const std::vector<std::string>& args);
int conformanceCommand(const std::vector<std::string>& args);
int traceCommand(const std::vector<std::string>& args);

// Prints "dfc: error: <message>" and returns the exit status for the error's kind.
int reportError(const Error& error);
int usageError(const std::string& message);  // exit status 2
// Parses a whole-string number; the error names the flag.
Expected<int64_t> parseInt(const std::string& flag, const std::string& text);
Expected<double> parseDouble(const std::string& flag, const std::string& text);

}  // namespace dfc::cli
