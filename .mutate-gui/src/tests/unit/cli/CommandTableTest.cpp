// The command table: `dfc --help` lists every command once, in table order,
// byte for byte as before the table; an unknown command names them all.
#include <catch2/catch.hpp>
#include <set>

#include "Commands.h"

using namespace dfc;

TEST_CASE("dfc --help is generated from the command table, unchanged", "[cli][commands]") {
  const std::string expected =
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
  CHECK(cli::usageText() == expected);
}

TEST_CASE("every command has a name, a function and a summary, and no name repeats", "[cli][commands]") {
  std::set<std::string_view> names;
  for (const auto& c : cli::commands()) {
    INFO(std::string(c.name));
    CHECK(!c.name.empty());
    CHECK(c.run != nullptr);
    CHECK(!c.summary.empty());
    CHECK(names.insert(c.name).second);
  }
  CHECK(cli::commandNameList() == "compile, run, inspect, report, trace, conformance, measure-performance, estimate");
}

TEST_CASE("an unknown command is a usage error, exit status 2", "[cli][commands]") {
  CHECK(cli::runNamedCommand("compyle", {}) == 2);
}
