#pragma once
// Data parallel: between backward and optimizer, one all_reduce node (role
// "reduce") per bucket of gradients, so each rank's optimizer applies the
// gradients averaged over every rank. Gradients are the f32 values a backward
// node produces and an optimizer node reads; buckets fill in the order
// backward produces them (late layers first), so the first bucket can be
// reduced while backward still works on early layers.
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::autograd {

struct GradientBucket {
  ir::NodeId node = ir::kNoNode;       // its all_reduce node
  std::vector<ir::ValueId> gradients;  // the values it reduces, in production order
  double bytes = 0;
};

// Gradient values in the order backward produces them.
std::vector<ir::ValueId> findGradients(const ir::Graph& graph);

// Inserts the all_reduce nodes (each at most `bucketBytes`, but never empty)
// just before the first optimizer node and points the optimizer at their
// outputs. Fails on a graph with no gradient reaching an optimizer.
Expected<std::vector<GradientBucket>> insertGradientReduce(ir::Graph& graph, double bucketBytes);

}  // namespace dfc::autograd
