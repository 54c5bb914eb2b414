#pragma once
// The gradient rule of each forward op: given the gradient `dy` of a node's
// single output, emit the nodes computing the gradients of its inputs.
#include <vector>

#include "autograd/GradientEmitter.h"

namespace dfc::autograd {

// Returns one entry per input of `node`: the gradient value, or ir::kNoValue
// where needed[i] is false. Ops without a rule (the *_grad ops, optimizer
// updates, reduce_sum over axes it cannot broadcast back) fail naming the node.
Expected<std::vector<ir::ValueId>> applyGradientRule(GradientEmitter& emitter, const ir::Node& node, ir::ValueId dy,
                                                     const std::vector<bool>& needed);

}  // namespace dfc::autograd
