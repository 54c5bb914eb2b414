#pragma once
// The ONNX backend suite's test data: each input_N.pb / output_N.pb is a
// TensorProto, SequenceProto or OptionalProto, which the file does not say;
// the model's graph inputs and outputs say which (readBoundary).
#include <string>
#include <vector>

#include "ir/Tensor.h"
#include "support/Error.h"

namespace dfc::onnx {

enum class ValueForm { Tensor, Sequence, Optional };

struct BoundaryValue {
  std::string name;
  ValueForm form = ValueForm::Tensor;
  bool bfloat16 = false;  // a tensor declared BFLOAT16 (onnx 1.12 writes its data as UINT16 bit patterns)
};

// The graph's inputs (initializers left out) and outputs, in order. A value of
// another type (a map, a sparse tensor, a sequence of sequences) is refused by name.
struct Boundary {
  std::vector<BoundaryValue> inputs, outputs;
};
Expected<Boundary> readBoundary(const std::string& modelPath);

// A tensor, a sequence's tensors, or an optional's (none when it is empty).
struct TestValue {
  std::string name;
  bool present = true;
  std::vector<ir::Tensor> items;
};
// `bfloat16`: a UINT16 tensor is read as the bfloat16 bits it holds.
Expected<TestValue> readTestValueFile(const std::string& path, ValueForm form, bool bfloat16 = false);
// The same from serialized bytes (`label` names them in errors; external data resolves in baseDir).
Expected<TestValue> parseTestValue(const std::string& bytes, ValueForm form, const std::string& label,
                                   const std::string& baseDir, bool bfloat16 = false);

}  // namespace dfc::onnx
