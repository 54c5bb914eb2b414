#pragma once
// Checks a parsed ONNX model before libonnx's checker and shape inference see
// it: those divide by strides and kernel sizes and inline local functions
// without limits, so a stride of 0 or a function that calls itself took the
// whole process down (SIGFPE, stack overflow). Refused here, with the node:
//   - window attributes (kernel_shape, strides, dilations > 0, pads >= 0,
//     group, blocksize > 0) on every node, in functions and subgraphs too;
//   - Conv / ConvTranspose whose declared image and weight ranks differ or are < 3;
//   - local functions that call themselves, nest deeper than kMaxFunctionDepth
//     or expand to more than kMaxExpandedNodes nodes;
//   - initializers and tensor attributes whose declared size overflows or
//     exceeds the memory budget, and external data whose location leaves the
//     model's folder or whose offset/length are not plain numbers.
#include <onnx/onnx_pb.h>

#include <string>

#include "support/Error.h"

namespace dfc::onnx {

constexpr int kMaxFunctionDepth = 32;
constexpr int64_t kMaxExpandedNodes = 1 << 20;

// `label` names the model in errors ("m.onnx: node 'conv' (Conv): strides must be > 0").
Status precheckModel(const ::onnx::ModelProto& model, const std::string& baseDir, const std::string& label);

// External data of one tensor: its file (inside baseDir), offset and length,
// checked as numbers and against the file's size. `bytes` is what the tensor needs.
struct ExternalData {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
};
Expected<ExternalData> externalDataOf(const ::onnx::TensorProto& t, const std::string& baseDir, uint64_t bytes);

// Declared bytes of a TensorProto, checked against overflow and the budget.
Expected<uint64_t> checkDeclaredSize(const ::onnx::TensorProto& t);

}  // namespace dfc::onnx
