#pragma once
// Structural and type checks of a Graph. Every error names the node
// ("node 'conv1.conv' (conv2d): ...") or the value ("value '%x': ...").
#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// What an error is about, for callers that know where it came from (a file's line).
struct VerifyCulprit {
  NodeId node = kNoNode;
  ValueId value = kNoValue;
};

struct VerifyOptions {
  // A Param without initial data is accepted only when this is false
  // (a graph text printed without weights, before the PEF adds them).
  bool requireWeights = true;
  VerifyCulprit* culprit = nullptr;  // set to the node or value an error names
};

Status verifyGraph(const Graph& g, const VerifyOptions& opts = {});

}  // namespace dfc::ir
