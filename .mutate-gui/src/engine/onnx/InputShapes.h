#pragma once
// Input shapes for ONNX models with dynamic dimensions: `--input-shape
// NAME=1x3x640x640` (repeatable) pins an input's shape; a named symbolic
// dimension ("batch", "height") bound by one input binds it in every other.
// A dynamic first dimension left unbound takes the batch size (-b); any other
// left unbound is refused, naming the input, the dimension and how to bind it.
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "ir/Tensor.h"
#include "support/Error.h"

namespace dfc::onnx {

using InputShapeMap = std::map<std::string, ir::Shape>;

// "x=1x3x640x640" -> {"x", {1, 3, 640, 640}}; a scalar is "x=" . Errors name the flag text.
Expected<std::pair<std::string, ir::Shape>> parseInputShape(const std::string& spec);
// Every spec parsed; a name given twice is refused.
Expected<InputShapeMap> parseInputShapes(const std::vector<std::string>& specs);
std::string formatShape(const ir::Shape& shape);  // {1, 3, 64} -> "1x3x64"

// The shape of every graph input that is not an initializer, by name: the
// given shapes (checked against the declared rank and static dimensions),
// symbols bound across inputs, a dynamic first dimension bound to `batchSize`.
// `label` names the model in errors; `strictNames`: a given name the graph
// does not take is refused (else skipped).
Expected<InputShapeMap> bindInputShapes(const ::onnx::GraphProto& g, const InputShapeMap& given, int64_t batchSize,
                                        const std::string& label, bool strictNames = true);

}  // namespace dfc::onnx
