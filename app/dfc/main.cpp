// dfc: the command-line twin of Dataflow Studio. compile -> PEF -> run.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "Commands.h"
#include "support/SizeBudget.h"

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
    "  measure-performance  throughput and step latency of a PEF over many steps, beside the chip estimate\n"
    "  estimate   the chip's estimated step: tokens/s or samples/s, compute / memory / communication, the bound\n"
    "\n"
    "Run 'dfc <command> --help' for the options of a command. 'dfc --version' prints the version.\n";

int dispatch(std::vector<std::string> args) {
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
  if (command == "measure-performance") return dfc::cli::measureCommand(args);
  if (command == "estimate") return dfc::cli::estimateCommand(args);
  return dfc::cli::usageError("unknown command '" + command +
                              "' (commands: compile, run, inspect, report, trace, conformance, measure-performance, estimate)");
}

}  // namespace

int main(int argc, char** argv) {
  // Bad input is refused before anything is allocated or computed; an exception
  // reaching here is our failure, so it says so (exit 1) instead of aborting.
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dfc: internal error: out of memory (memory budget %s; --max-memory refuses large inputs earlier)\n",
                 dfc::support::formatBytes(dfc::support::memoryBudget()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dfc: internal error: %s\n", e.what());
  }
  return 1;
}
