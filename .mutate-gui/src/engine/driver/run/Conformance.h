#pragma once
// The conformance runner behind `dfc conformance DIR`: each case folder holds
// model.onnx and test_data_set_0/input_N.pb + output_N.pb (onnx.TensorProto).
// A case is imported, compiled at -o0 for inference, run, and every output
// compared with the expected one (float32: |got - want| <= atol + rtol |want|,
// integers and booleans exactly).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/Tensor.h"
#include "partition/Plan.h"
#include "support/Error.h"

namespace dfc::driver {

enum class CaseStatus { Pass, Fail, Unsupported };

struct CaseResult {
  std::string name;
  CaseStatus status = CaseStatus::Unsupported;
  std::string detail;  // the line after "FAIL name: " / "UNSUPPORTED name: "
};

struct ConformanceOptions {
  double rtol = 1e-3, atol = 1e-7;  // the ONNX backend test runner's defaults
  std::string filter;  // substring of case names to run ("" = all)
  partition::OptLevel level = partition::OptLevel::O0;
  // --input-shape: input shapes by name; an input not named here takes the
  // shape of its test input (input_N.pb).
  std::map<std::string, ir::Shape> inputShapes;
};

struct ConformanceSummary {
  int passed = 0, failed = 0, unsupported = 0;
  std::vector<CaseResult> cases;
};

CaseResult runConformanceCase(const std::string& caseDir, const ConformanceOptions& options = {});
// Cases are the subfolders holding a model.onnx, in name order; `onCase` sees each result.
Expected<ConformanceSummary> runConformance(const std::string& dir, const ConformanceOptions& options = {},
                                            const std::function<void(const CaseResult&)>& onCase = {});
// An unsupported case's detail without the names and numbers of the case
// ("node 'If_1' (If, opset 11): unsupported op" -> "If: unsupported op").
std::string unsupportedReason(const std::string& detail);
// The unsupported cases counted by reason, most frequent first.
std::vector<std::pair<int, std::string>> unsupportedByReason(const ConformanceSummary& summary);
std::string formatCaseLine(const CaseResult& result);  // "PASS name", "FAIL name: ...", "UNSUPPORTED name: ..."

}  // namespace dfc::driver
