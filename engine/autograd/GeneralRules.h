#pragma once
// Gradient rules of the general ops imported from ONNX (unary, binary, where,
// reduce, expand, concat, gather, strided_slice, conv, pool), built from the
// general ops themselves plus the existing *_grad ops. Same contract as
// applyGradientRule; ops or attribute combinations without a rule fail naming the node.
#include <vector>

#include "autograd/GradientEmitter.h"

namespace dfc::autograd {

Expected<std::vector<ir::ValueId>> applyGeneralRule(GradientEmitter& emitter, const ir::Node& node, ir::ValueId dy,
                                                    const std::vector<bool>& needed);

}  // namespace dfc::autograd
