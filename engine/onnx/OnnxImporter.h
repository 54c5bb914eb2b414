#pragma once
// ONNX import: a .onnx file (opsets 11-17; older opsets where each operator is still its opset-11 version) -> an IR graph, through Debian's
// libonnx (protobuf definitions, checker, shape inference). Initializers
// become Params (float weights in trainable positions) or Consts, external
// data is read relative to the model file, dynamic dims bind to the given
// input shapes (a leading one to the batch size), and nodes whose inputs are all constant are folded at import (shape
// arithmetic). Every refusal is one line naming the node, op type and opset.
#include <map>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::onnx {

// A sequence or optional graph input: the shapes of its tensors (each becomes
// an IR input named "<input>.<position>"); an optional holds none or one.
struct ListInput {
  bool present = true;  // optionals: false for an empty one
  std::vector<ir::Shape> shapes;
};

struct ImportOptions {
  int64_t batchSize = 1;  // binds a dynamic first input dimension that inputShapes leaves unbound
  // Input shapes by input name (--input-shape); named symbolic dimensions they
  // bind apply to every input (onnx/InputShapes.h). Another dynamic dimension
  // left unbound is refused.
  std::map<std::string, ir::Shape> inputShapes;
  bool ignoreUnknownInputShapes = false;  // true: a name the graph does not take is skipped, not refused
  // Values for graph inputs that only feed operands a static compiler must know
  // (Resize scales/sizes, Reshape shape, Slice starts, ...): such an input
  // becomes a constant with this value, as the chip's graph is specialized on it;
  // so does one of at most 64 elements whose value reaches such an operand
  // through computation (a window length cast and scaled into Range's limit).
  // Other inputs named here stay inputs.
  std::map<std::string, ir::Tensor> operandValues;
  // Sequence and optional inputs by name (onnx/Sequences.h); one not named here is refused.
  std::map<std::string, ListInput> listInputs;
  // Set: filled with the model's own names of the graph's inputs and outputs,
  // in order (IR value names are sanitized and made unique; users know these).
  std::vector<std::string>* inputNames = nullptr;
  std::vector<std::string>* outputNames = nullptr;
};

// The graph's inputs are the ONNX graph inputs that are not initializers, in
// order; its outputs are the ONNX graph outputs, in order.
Expected<ir::Graph> importOnnxFile(const std::string& path, const ImportOptions& options = {});
// The same from serialized bytes; `baseDir` resolves external data ("" = cwd).
Expected<ir::Graph> importOnnxBytes(const std::string& bytes, const std::string& baseDir, const std::string& label,
                                    const ImportOptions& options = {});

// A serialized onnx.TensorProto (the conformance suite's input_N.pb / output_N.pb).
Expected<ir::Tensor> readTensorProtoFile(const std::string& path);
// The same with the name the proto carries ("" when it has none). `declared`:
// the element types the model gives its graph inputs and outputs, by name; a
// UINT16 proto of a BFLOAT16 value holds its bit patterns (how onnx 1.12's node
// suite stores bfloat16).
Expected<ir::Tensor> readTensorProtoFile(const std::string& path, std::string& name,
                                         const std::map<std::string, int>& declared = {});
// The element types a model file declares for its graph inputs and outputs, by name.
Expected<std::map<std::string, int>> declaredTypes(const std::string& modelPath);

}  // namespace dfc::onnx
