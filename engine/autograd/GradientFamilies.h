#pragma once
// Internal to autograd: one gradient rule per op, grouped by the family
// column of Ops.def. The declarations and the table in GradientRules.cpp are
// generated from Ops.def and name <Family>Grads::<Op> for every op, so an op
// added there without a rule (or an explicit refusal) does not link. Same contract as
// applyGradientRule. (Member names are the OpKind enumerators, hence PascalCase.)
#include <string>
#include <vector>

#include "autograd/GradientEmitter.h"
#include "ir/OpFamilies.gen.h"

namespace dfc::autograd {

using Grads = std::vector<ir::ValueId>;

// A forward node, the gradient of its (first) output, and which inputs need one.
struct RuleArgs {
  GradientEmitter& e;
  const ir::Node& node;
  ir::ValueId dy;
  const std::vector<bool>& need;
};

using GradRule = Expected<Grads> (*)(const RuleArgs&);

// "autograd: <op> '<node>' <why>"
inline Error noRule(const ir::Node& n, const std::string& why) {
  return makeError("autograd: " + std::string(ir::opName(n.op)) + " '" + n.name + "' " + why);
}
// The rule of the *_grad and optimizer ops.
inline Expected<Grads> notDifferentiable(const RuleArgs& a) {
  return noRule(a.node, "has no gradient rule (second-order and optimizer ops are not differentiable here)");
}

// One struct per family, <Family>Grads, with a rule per op of the family:
// declared from Ops.def (OpFamilies.gen.h), defined in GradientRules.cpp,
// ExtraRules.cpp (conv, pool, norm, transformer), GeneralRules.cpp (the general
// ops imported from ONNX; attribute combinations without a rule fail naming
// the node) and NotDifferentiable.cpp (the refusals).
#define DFC_GRADIENT_RULE(Op) static Expected<Grads> Op(const RuleArgs& a);
DFC_FAMILY_STRUCTS(Grads, DFC_GRADIENT_RULE)
#undef DFC_GRADIENT_RULE

}  // namespace dfc::autograd
