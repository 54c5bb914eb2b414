#pragma once
// The built-in model zoo. Models are built with GraphBuilder; every layer is
// a hyperfunction scope ("conv1", "fc2") so sections and traces group by it.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::frontend {

// A forward (inference) graph with its image input and logits output marked.
struct Model {
  ir::Graph graph;             // graph.inputs = {image}, graph.outputs = {logits}
  ir::ValueId image = ir::kNoValue;
  ir::ValueId logits = ir::kNoValue;
  int64_t numClasses = 0;
};

std::vector<std::string> zooModelNames();  // {"logreg", "mlp", "lenet"}
// Builds `name` for batch size `batchSize` with weights initialized from `seed`
// (deterministic). Unknown name: an error listing the zoo.
Expected<Model> buildZooModel(const std::string& name, int64_t batchSize, uint64_t seed = 42);

}  // namespace dfc::frontend
