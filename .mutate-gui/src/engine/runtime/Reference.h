#pragma once
// The reference interpreter: the plainest possible implementation of every
// op (naive loops, double accumulation, no BLAS). Only tests use it, as the
// oracle for the runtime's kernels and for autograd's finite differences.
#include <map>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime {

// Evaluates every node of `graph` in order. `feeds` must hold a tensor for every
// graph input; Params and Consts come from graph.initializers unless overridden
// in `feeds`. Returns the tensor of every value (inputs, params and intermediates).
Expected<std::map<ir::ValueId, ir::Tensor>> referenceEvaluate(const ir::Graph& graph,
                                                              const std::map<ir::ValueId, ir::Tensor>& feeds);

}  // namespace dfc::runtime
