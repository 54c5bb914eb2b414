#include <cstdio>

#include "ArgParser.h"
#include "Commands.h"
#include "driver/run/Conformance.h"
#include "onnx/InputShapes.h"

namespace dfc::cli {

int conformanceCommand(const std::vector<std::string>& args) {
  ArgParser p("conformance",
              "Check ONNX models against expected outputs: DIR holds case folders (model.onnx and\n"
              "test_data_set_0/input_N.pb, output_N.pb). Each case is compiled at -o0 for inference, run,\n"
              "and compared (float32 within rtol/atol, bfloat16 outputs with rtol at least 2^-7, one unit\n"
              "in their last place; integers and booleans exactly).\n"
              "Exit status 0 when no case fails (unsupported cases are allowed), 1 otherwise.");
  p.add({{"--filter"}, "TEXT", 1, "run only the cases whose name contains TEXT"});
  p.add({{"--rtol"}, "X", 1, "relative tolerance for float32 (default 1e-3, as the ONNX backend tests)"});
  p.add({{"--atol"}, "X", 1, "absolute tolerance for float32 (default 1e-7, as the ONNX backend tests)"});
  p.add({{"--input-shape"}, "NAME=DxD...", 1,
         "the shape of input NAME (repeatable; default: the shape of the case's test input)"});
  p.add({{"-o0"}, "", 0, "compile one operator per section (default)"});
  p.add({{"-o1"}, "", 0, "compile with -o1 fusion"});
  p.add({{"-o3"}, "", 0, "compile with -o3 sections"});
  p.add({{"-q", "--quiet"}, "", 0, "print only failures and the summary"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (auto rc = applyMaxMemory(p)) return *rc;
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  auto pos = p.positional();
  if (pos.size() != 1) return usageError("conformance: give one directory of cases (dfc conformance DIR)");
  driver::ConformanceOptions o;
  o.filter = p.get("--filter", "");
  if (p.has("--rtol")) {
    auto v = parseDouble("--rtol", p.get("--rtol", ""));
    if (!v) return reportError(v.error());
    o.rtol = *v;
  }
  if (p.has("--atol")) {
    auto v = parseDouble("--atol", p.get("--atol", ""));
    if (!v) return reportError(v.error());
    o.atol = *v;
  }
  auto shapes = onnx::parseInputShapes(p.getAll("--input-shape"));
  if (!shapes) return reportError(shapes.error());
  o.inputShapes = std::move(*shapes);
  if (p.has("-o1")) o.level = partition::OptLevel::O1;
  if (p.has("-o3")) o.level = partition::OptLevel::O3;
  const bool quiet = p.has("--quiet");
  auto summary = driver::runConformance(pos[0], o, [&](const driver::CaseResult& r) {
    if (!quiet || r.status == driver::CaseStatus::Fail) std::printf("%s\n", driver::formatCaseLine(r).c_str());
    std::fflush(stdout);
  });
  if (!summary) return reportError(summary.error());
  if (summary->unsupported > 0) {  // before the summary, which stays the last line
    std::printf("unsupported cases by reason:\n");
    for (const auto& [n, reason] : driver::unsupportedByReason(*summary)) std::printf("%6d  %s\n", n, reason.c_str());
  }
  std::printf("%d passed, %d failed, %d unsupported\n", summary->passed, summary->failed, summary->unsupported);
  return summary->failed == 0 ? 0 : 1;
}

}  // namespace dfc::cli
