// The command table: usage, dispatch and the unknown-command error all read it,
// so a command is added in one place (besides its own file).
#include "Commands.h"

namespace dfc::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"compile", compileCommand, "compile a model (zoo name, .dfir or .onnx) into a PEF"},
      {"run", runCommand, "run a PEF: train (or evaluate) on an IDX dataset, write a chrome trace"},
      {"inspect", inspectCommand, "print a PEF's metadata, sections and compile report"},
      {"report", reportCommand, "write section_report.csv for a PEF (with measured times of its latest run)"},
      {"trace", traceCommand, "search a chrome trace, or aggregate a time range by name, section or hypersection"},
      {"conformance", conformanceCommand,
       "check ONNX models against expected outputs (ONNX backend test case folders)"},
      {"measure-performance", measureCommand,
       "throughput and step latency of a PEF over many steps, beside the chip estimate"},
      {"estimate", estimateCommand,
       "the chip's estimated step: tokens/s or samples/s, compute / memory / communication, the bound"},
  };
  return table;
}

std::string usageText() {
  std::string text =
      "usage: dfc <command> [options]\n"
      "\n"
      "Compile and run neural-network models for a modelled reconfigurable dataflow chip.\n"
      "\n"
      "commands:\n";
  constexpr size_t kSummaryColumn = 11;  // summaries line up after short names; long ones get two spaces
  for (const auto& c : commands()) {
    const size_t pad = c.name.size() + 2 < kSummaryColumn ? kSummaryColumn - c.name.size() : 2;
    text += "  " + std::string(c.name) + std::string(pad, ' ') + std::string(c.summary) + "\n";
  }
  text +=
      "\n"
      "Run 'dfc <command> --help' for the options of a command. 'dfc --version' prints the version.\n";
  return text;
}

std::string commandNameList() {
  std::string list;
  for (const auto& c : commands()) list += (list.empty() ? "" : ", ") + std::string(c.name);
  return list;
}

int runNamedCommand(const std::string& name, const std::vector<std::string>& args) {
  for (const auto& c : commands())
    if (c.name == name) return c.run(args);
  return usageError("unknown command '" + name + "' (commands: " + commandNameList() + ")");
}

}  // namespace dfc::cli
