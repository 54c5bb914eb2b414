#pragma once
// Graphs whose nodes are not in topological order (some toolchains write them
// so; ONNX Runtime runs them, the ONNX checker refuses them): the nodes are
// put in order before the checker sees the model, keeping the written order
// among nodes that are ready together. Subgraphs (If/Loop/Scan bodies) are
// sorted too; a node that reads an outer value inside a subgraph waits for it.
// A graph with a cycle or an undefined input is left as it is, for the checker
// or the importer to refuse.
#include <onnx/onnx_pb.h>

namespace dfc::onnx {

// True when some graph's order changed.
bool sortNodesTopologically(::onnx::ModelProto& model);

}  // namespace dfc::onnx
