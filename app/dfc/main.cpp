// dfc: the command-line twin of Dataflow Studio. compile -> PEF -> run.
#include <cstdio>
#include <string>
#include <vector>

#include "Commands.h"

namespace {

const char* kUsage =
    "usage: dfc <command> [options]\n"
    "\n"
    "Compile and run neural-network models for a modelled reconfigurable dataflow chip.\n"
    "\n"
    "commands:\n"
    "  compile    compile a model (zoo name, .dfir or .onnx) into a PEF\n"
    "  run        run a PEF: train (or evaluate) on an IDX dataset, write a chrome trace\n"
    "  inspect    print a PEF's metadata, sections and compile report\n"
    "  report     write section_report.csv for a PEF (with measured times of its latest run)\n"
    "  trace      search a chrome trace, or aggregate a time range by name, section or hypersection\n"
    "  conformance  check ONNX models against expected outputs (ONNX backend test case folders)\n"
    "\n"
    "Run 'dfc <command> --help' for the options of a command. 'dfc --version' prints the version.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::fputs(kUsage, stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("dfc %s\n", DFC_VERSION);
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "compile") return dfc::cli::compileCommand(args);
  if (command == "run") return dfc::cli::runCommand(args);
  if (command == "inspect") return dfc::cli::inspectCommand(args);
  if (command == "report") return dfc::cli::reportCommand(args);
  if (command == "conformance") return dfc::cli::conformanceCommand(args);
  if (command == "trace") return dfc::cli::traceCommand(args);
  return dfc::cli::usageError("unknown command '" + command +
                              "' (commands: compile, run, inspect, report, trace, conformance)");
}
