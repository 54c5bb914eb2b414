#pragma once
// The dfc subcommands. Each returns the process exit status:
// 0 success, 2 bad input (one line naming the culprit), 1 internal failure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/ConvAlgo.h"
#include "support/Error.h"

namespace dfc::cli {

class ArgParser;

int compileCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int inspectCommand(const std::vector<std::string>& args);
int reportCommand(const std::vector<std::string>& args);
int conformanceCommand(const std::vector<std::string>& args);
int traceCommand(const std::vector<std::string>& args);
int measureCommand(const std::vector<std::string>& args);
int estimateCommand(const std::vector<std::string>& args);

// One row per command (Commands.cpp): `dfc --help`, dispatch and the
// unknown-command error are generated from it.
struct Command {
  std::string_view name;
  int (*run)(const std::vector<std::string>& args);
  std::string_view summary;  // one line in `dfc --help`
};
const std::vector<Command>& commands();
std::string usageText();        // `dfc --help`
std::string commandNameList();  // "compile, run, ..."
// Runs the named command; an unknown name is a usage error listing the commands.
int runNamedCommand(const std::string& name, const std::vector<std::string>& args);

// Prints "dfc: error: <message>" and returns the exit status for the error's kind.
int reportError(const Error& error);
int usageError(const std::string& message);  // exit status 2
// Parses a whole-string number; the error names the flag.
Expected<int64_t> parseInt(const std::string& flag, const std::string& text);
Expected<double> parseDouble(const std::string& flag, const std::string& text);

// --max-memory SIZE: the budget declared sizes are checked against (support/SizeBudget.h).
void addMaxMemoryFlag(ArgParser& p);
// Applies it; an exit status when the value is bad.
std::optional<int> applyMaxMemory(const ArgParser& p);

// --conv-algo auto|gemm|winograd2|winograd4: how the host runs 3x3 stride-1 convolutions.
void addConvAlgoFlag(ArgParser& p, const char* what);
// Reads it into `request` (unchanged when absent); an exit status when the value is bad.
std::optional<int> applyConvAlgo(const ArgParser& p, runtime::ConvAlgoRequest& request);

}  // namespace dfc::cli
