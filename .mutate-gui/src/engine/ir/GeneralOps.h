#pragma once
// Shape rules of the general ops (unary, binary, where, cast, reduce, expand,
// concat, gather, strided_slice, conv, pool): numpy broadcasting and window
// geometry shared by shape inference, the kernels and the ONNX importer.
#include <optional>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// numpy broadcast of two shapes; nullopt if they do not broadcast.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);

// Binary fns whose result is bool ("equal", "less", ...).
bool binaryFnIsComparison(const std::string& fn);
bool binaryFnKnown(const std::string& fn);
bool unaryFnKnown(const std::string& fn);
bool reduceFnKnown(const std::string& fn);

// Output extent of one spatial axis of conv/pool (ONNX rules, ceil_mode for pooling).
int64_t windowOut(int64_t in, int64_t k, int64_t stride, int64_t padBegin, int64_t padEnd, int64_t dilation,
                  bool ceilMode);

// The ops of the General family in Ops.def (their shape rules: GeneralShapes in ShapeRules.h).
bool isGeneralOp(OpKind op);

}  // namespace dfc::ir
