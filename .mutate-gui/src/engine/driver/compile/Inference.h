#pragma once
// Inference-only compiles of arbitrary graphs (several inputs and outputs),
// kept in memory: what `dfc conformance` and the ONNX tests use. The same
// stages as compile() up to the section plan (passes, verify, decompose,
// map); no placement, no files, no run store.
#include <map>
#include <string>
#include <vector>

#include "onnx/OnnxImporter.h"
#include "partition/Plan.h"
#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::driver {

struct InferenceCompileOptions {
  int64_t batchSize = 1;  // binds a dynamic first input dimension
  // ONNX only: input shapes by name (onnx::ImportOptions::inputShapes).
  std::map<std::string, ir::Shape> inputShapes;
  bool ignoreUnknownInputShapes = false;
  partition::OptLevel level = partition::OptLevel::O0;
  std::string arch = "native";
  // ONNX only: values for inputs that feed shaping operands (onnx::ImportOptions).
  std::map<std::string, ir::Tensor> operandValues;
  // ONNX only: the shapes of sequence and optional inputs' tensors (onnx::ImportOptions::listInputs).
  std::map<std::string, onnx::ListInput> listInputs;
};

// model: a .onnx or .dfir file. Errors are the importer's one-line refusals.
Expected<pef::Pef> compileForInference(const std::string& modelPath, const InferenceCompileOptions& options = {});
// The same for a graph built in memory.
Expected<pef::Pef> compileGraphForInference(ir::Graph graph, const InferenceCompileOptions& options = {});

// Feeds `inputs` to graph.inputs (in order, types must match), runs one
// forward step on the runtime's executor, and returns every graph output.
Expected<std::vector<ir::Tensor>> runInference(const pef::Pef& pef, const std::vector<ir::Tensor>& inputs);

}  // namespace dfc::driver
