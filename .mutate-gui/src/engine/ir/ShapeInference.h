#pragma once
// Shape inference: the output types of a node from its input types and
// attributes. Used by the builder (to create output values), the verifier
// (to check stored types) and importers.
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// Output types of `node` given its inputs' types in `graph`. The error names
// the node and says what is wrong ("conv2d 'conv1.conv': input channels 3 != weight channels 1").
Expected<std::vector<TensorType>> inferOutputTypes(const Graph& graph, const Node& node);

}  // namespace dfc::ir
