#pragma once
// Structural and type checks of a Graph. Every error names the node
// ("node 'conv1.conv' (conv2d): ...") or the value ("value '%x': ...").
#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

struct VerifyOptions {
  // A Param without initial data is accepted only when this is false
  // (a graph text printed without weights, before the PEF adds them).
  bool requireWeights = true;
};

Status verifyGraph(const Graph& g, const VerifyOptions& opts = {});

}  // namespace dfc::ir
