#pragma once
// Gradient rules of the transformer, vision and layout ops, kept apart from
// GradientRules.cpp (which dispatches to them). Same contract as applyGradientRule.
#include <vector>

#include "autograd/GradientEmitter.h"

namespace dfc::autograd {

Expected<std::vector<ir::ValueId>> applyExtraRule(GradientEmitter& emitter, const ir::Node& node, ir::ValueId dy,
                                                  const std::vector<bool>& needed);

}  // namespace dfc::autograd
