#include "driver/run/Conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "driver/compile/Inference.h"
#include "onnx/OnnxImporter.h"
#include "onnx/TestData.h"

namespace dfc::driver {
namespace fs = std::filesystem;

namespace {

double elementAt(const ir::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case ir::DType::F32: return t.data<float>()[i];
    case ir::DType::I64: return static_cast<double>(t.data<int64_t>()[i]);
    case ir::DType::I32: return t.data<int32_t>()[i];
    case ir::DType::Bool: return t.data<bool>()[i] ? 1.0 : 0.0;
  }
  return 0;
}

// A data set's files (input_N.pb or output_N.pb), read by the form of the
// graph's value N, flattened: a sequence or optional gives its tensors, named
// "<value>.<position>" (the IR inputs the importer makes of them).
struct DataSet {
  std::vector<ir::Tensor> tensors;
  std::vector<std::string> names;
  std::vector<bool> listItem;                    // per tensor: one of a sequence's or optional's
  std::vector<bool> bfloat16;                    // per tensor: declared BFLOAT16
  std::map<std::string, onnx::ListInput> lists;  // the sequences and optionals among them, by value name
};

Expected<DataSet> readSet(const fs::path& dir, const std::string& prefix,
                          const std::vector<onnx::BoundaryValue>& values) {
  DataSet out;
  for (size_t i = 0;; ++i) {
    fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    const onnx::ValueForm form = i < values.size() ? values[i].form : onnx::ValueForm::Tensor;
    const bool bfloat16 = i < values.size() && values[i].bfloat16;
    auto v = onnx::readTestValueFile(p.string(), form, bfloat16);
    if (!v) return v.error();
    if (form == onnx::ValueForm::Tensor) {
      out.tensors.push_back(std::move(v->items.at(0)));
      out.names.push_back(v->name);
      out.listItem.push_back(false);
      out.bfloat16.push_back(bfloat16);
      continue;
    }
    const std::string name = v->name.empty() ? values[i].name : v->name;
    onnx::ListInput& list = out.lists[name];
    list.present = v->present;
    for (size_t k = 0; k < v->items.size(); ++k) {
      list.shapes.push_back(v->items[k].shape());
      out.tensors.push_back(std::move(v->items[k]));
      out.names.push_back(name + "." + std::to_string(k));
      out.listItem.push_back(true);
      out.bfloat16.push_back(false);
    }
  }
  return out;
}

// A bfloat16 value holds 8 significant bits: producers that round (to nearest
// even) and that truncate differ by one unit in the last place, 2^-7 of it.
constexpr double kBfloat16Ulp = 1.0 / 128;

// The case's inputs that are still graph inputs after import (the others became
// constants: onnx::ImportOptions::operandValues), in the graph's order.
std::vector<ir::Tensor> remainingInputs(const ir::Graph& g, std::vector<ir::Tensor> inputs,
                                        const std::vector<std::string>& names) {
  std::vector<ir::Tensor> fed;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const std::string& want = g.value(g.inputs[k]).name;
    auto at = std::find(names.begin(), names.end(), want);
    if (at != names.end()) fed.push_back(inputs[static_cast<size_t>(at - names.begin())]);
    else if (k < inputs.size()) fed.push_back(inputs[k]);  // unnamed protos: by position
  }
  return fed;
}

}  // namespace

CaseResult runConformanceCase(const std::string& caseDir, const ConformanceOptions& options) {
  CaseResult r;
  r.name = fs::path(caseDir).filename().string();
  auto unsupported = [&](const std::string& why) {
    r.status = CaseStatus::Unsupported;
    r.detail = why;
    return r;
  };
  auto fail = [&](const std::string& why) {
    r.status = CaseStatus::Fail;
    r.detail = why;
    return r;
  };
  fs::path data = fs::path(caseDir) / "test_data_set_0";
  auto boundary = onnx::readBoundary((fs::path(caseDir) / "model.onnx").string());
  if (!boundary) return unsupported(boundary.error().message());
  auto in = readSet(data, "input_", boundary->inputs);
  if (!in) return unsupported(in.error().message());
  auto out = readSet(data, "output_", boundary->outputs);
  if (!out) return unsupported(out.error().message());
  std::vector<ir::Tensor>& inputs = in->tensors;
  const std::vector<std::string>& inputNames = in->names;
  std::vector<ir::Tensor>& expected = out->tensors;
  if (expected.empty() && out->lists.empty()) return unsupported("no expected outputs in " + data.string());
  InferenceCompileOptions co;
  co.level = options.level;
  co.batchSize = inputs.empty() || inputs[0].shape().empty() ? 1 : inputs[0].shape()[0];
  co.inputShapes = options.inputShapes;
  co.ignoreUnknownInputShapes = true;  // test data may name values the graph does not take
  co.listInputs = in->lists;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (!inputNames[k].empty() && !in->listItem[k]) {
      co.operandValues.emplace(inputNames[k], inputs[k]);
      co.inputShapes.emplace(inputNames[k], inputs[k].shape());  // --input-shape wins
    }
  auto pef = compileForInference((fs::path(caseDir) / "model.onnx").string(), co);
  if (!pef) return unsupported(pef.error().message());
  auto got = runInference(*pef, remainingInputs(pef->graph, std::move(inputs), inputNames));
  if (!got) return fail(got.error().message());
  if (got->size() != expected.size())
    return fail("model gives " + std::to_string(got->size()) + " outputs, expected " + std::to_string(expected.size()));
  // The worst element is the one furthest past its own allowance
  // (atol + rtol |expected|), so a 1e12 output right to 7 digits is no failure.
  struct Worst {
    double excess = 0, got = 0, want = 0;
    size_t output = 0;
    int64_t index = 0;
  } worst;
  bool bad = false;
  for (size_t k = 0; k < expected.size(); ++k) {
    const ir::Tensor &g = (*got)[k], &e = expected[k];
    if (g.shape() != e.shape() || g.dtype() != e.dtype())
      return fail("output " + std::to_string(k) + " is " + g.type().toString() + ", expected " + e.type().toString());
    const bool exact = e.dtype() != ir::DType::F32;
    const double rtol = out->bfloat16[k] ? std::max(options.rtol, kBfloat16Ulp) : options.rtol;
    for (int64_t i = 0; i < e.numElements(); ++i) {
      double a = elementAt(g, i), b = elementAt(e, i);
      if (std::isnan(b) && std::isnan(a)) continue;
      if (std::isinf(b) && a == b) continue;
      const double allowed = exact ? 0.0 : options.atol + rtol * std::fabs(b);
      const double err = std::fabs(a - b);
      if (err <= allowed && !std::isnan(err)) continue;
      const double excess = std::isnan(err) ? INFINITY : allowed > 0 ? err / allowed : INFINITY;
      if (!bad || excess > worst.excess) worst = {excess, a, b, k, i};
      bad = true;
    }
  }
  if (bad) {
    std::ostringstream ss;
    ss.precision(7);
    const double abs = std::fabs(worst.got - worst.want);
    ss << "output " << worst.output << " element " << worst.index << ": got " << worst.got << ", expected "
       << worst.want << " (abs err " << abs << ", rel err " << abs / std::max(std::fabs(worst.want), 1e-30)
       << "; allowed atol " << options.atol << " + rtol " << options.rtol << " x |expected|)";
    return fail(ss.str());
  }
  r.status = CaseStatus::Pass;
  return r;
}

Expected<ConformanceSummary> runConformance(const std::string& dir, const ConformanceOptions& options,
                                            const std::function<void(const CaseResult&)>& onCase) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return makeError(dir + ": not a directory of conformance cases");
  std::vector<fs::path> cases;
  if (fs::exists(fs::path(dir) / "model.onnx")) cases.push_back(dir);  // a single case folder
  else
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  if (cases.empty()) return makeError(dir + ": no case folders (each needs a model.onnx)");
  ConformanceSummary summary;
  for (const auto& c : cases) {
    if (!options.filter.empty() && c.filename().string().find(options.filter) == std::string::npos) continue;
    CaseResult r;
    try {  // libonnx and protobuf throw; a case must never take the run down
      r = runConformanceCase(c.string(), options);
    } catch (const std::exception& e) {
      r.name = c.filename().string();
      r.status = CaseStatus::Fail;
      r.detail = std::string("exception: ") + e.what();
    }
    (r.status == CaseStatus::Pass ? summary.passed : r.status == CaseStatus::Fail ? summary.failed : summary.unsupported)++;
    if (onCase) onCase(r);
    summary.cases.push_back(std::move(r));
  }
  return summary;
}

std::string unsupportedReason(const std::string& detail) {
  std::string d = detail;
  for (const char* file : {".onnx: ", ".pb: "})  // the case's file names
    if (auto at = d.rfind(file); at != std::string::npos) d = d.substr(at + std::string(file).size());
  static const std::pair<std::regex, const char*> kRules[] = {
      {std::regex(R"(node '[^']*' \(([A-Za-z0-9]+), opset [0-9]+\))"), "$1"},
      {std::regex(R"((tensor|input|output|initializer) '[^']*')"), "$1"},
      {std::regex(R"(tensor: tensor)"), "tensor"},
      {std::regex(R"(\b[0-9]+(\.[0-9]+)?\b)"), "N"},
  };
  for (const auto& [pattern, replacement] : kRules) d = std::regex_replace(d, pattern, replacement);
  return d;
}

std::vector<std::pair<int, std::string>> unsupportedByReason(const ConformanceSummary& summary) {
  std::map<std::string, int> counts;
  for (const auto& c : summary.cases)
    if (c.status == CaseStatus::Unsupported) ++counts[unsupportedReason(c.detail)];
  std::vector<std::pair<int, std::string>> out;
  for (const auto& [reason, n] : counts) out.emplace_back(n, reason);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

std::string formatCaseLine(const CaseResult& r) {
  switch (r.status) {
    case CaseStatus::Pass: return "PASS " + r.name;
    case CaseStatus::Fail: return "FAIL " + r.name + ": " + r.detail;
    case CaseStatus::Unsupported: return "UNSUPPORTED " + r.name + ": " + r.detail;
  }
  return r.name;
}

}  // namespace dfc::driver
