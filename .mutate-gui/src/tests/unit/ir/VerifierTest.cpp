#include <catch2/catch.hpp>

#include "ir/Verifier.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc::ir;
using dfc::ir::test::sampleGraph;

namespace {
std::string verifyError(const Graph& g, VerifyOptions opts = {}) {
  auto st = verifyGraph(g, opts);
  return st ? std::string("<ok>") : st.error().message();
}

// x -> relu "a" -> relu "b", built by hand so tests can break it.
Graph chain() {
  Graph g;
  g.name = "chain";
  ValueId x = g.addInput("x", {DType::F32, {4}});
  ValueId a = g.addValue("a.out", {DType::F32, {4}}, ValueKind::Intermediate);
  ValueId b = g.addValue("b.out", {DType::F32, {4}}, ValueKind::Intermediate);
  g.addNode(OpKind::Relu, "a", {x}, {a});
  g.addNode(OpKind::Relu, "b", {a}, {b});
  g.outputs = {b};
  return g;
}
}  // namespace

TEST_CASE("verifier accepts well-formed graphs", "[ir][verifier]") {
  CHECK(verifyError(chain()) == "<ok>");
  CHECK(verifyError(sampleGraph()) == "<ok>");
}

TEST_CASE("verifier rejects use before definition", "[ir][verifier]") {
  Graph g;
  ValueId x = g.addInput("x", {DType::F32, {4}});
  ValueId a = g.addValue("a.out", {DType::F32, {4}}, ValueKind::Intermediate);
  ValueId b = g.addValue("b.out", {DType::F32, {4}}, ValueKind::Intermediate);
  g.addNode(OpKind::Relu, "b", {a}, {b});
  g.addNode(OpKind::Relu, "a", {x}, {a});
  CHECK(verifyError(g) == "node 'b' (relu): input '%a.out' is used before it is defined");
}

TEST_CASE("verifier rejects duplicate names", "[ir][verifier]") {
  Graph g = chain();
  g.nodes[1].name = "a";
  CHECK(verifyError(g) == "node 'a' (relu): duplicate node name");
  g = chain();
  g.values[2].name = "a.out";
  CHECK(verifyError(g) == "value '%a.out': duplicate value name");
}

TEST_CASE("verifier rejects wrong arity", "[ir][verifier]") {
  Graph g = chain();
  g.nodes[1].inputs.push_back(0);
  CHECK(verifyError(g) == "node 'b' (relu): expects 1 inputs, has 2");
  g = chain();
  g.nodes[0].op = OpKind::Add;
  CHECK(verifyError(g) == "node 'a' (add): expects 2 inputs, has 1");
}

TEST_CASE("verifier rejects a stored shape that shape inference disagrees with", "[ir][verifier]") {
  Graph g = sampleGraph();
  ValueId conv = g.findValue("conv1.out");
  g.value(conv).type.shape = {2, 3, 5, 5};
  CHECK(verifyError(g) == "node 'conv1.conv' (conv2d): output '%conv1.out' is stored as f32[2,3,5,5] but the op gives f32[2,3,6,6]");
  g = sampleGraph();
  g.value(g.findValue("conv1.weight")).type.shape = {3, 2, 3, 3};
  g.initializers.at(g.findValue("conv1.weight")) = Tensor(TensorType{DType::F32, {3, 2, 3, 3}});
  CHECK(verifyError(g) == "node 'conv1.conv' (conv2d): input channels 1 != weight channels 2");
}

TEST_CASE("verifier rejects non-float inputs to float ops", "[ir][verifier]") {
  Graph g = chain();
  g.value(0).type.dtype = DType::I32;
  CHECK(verifyError(g) == "node 'a' (relu): input '%x' must be f32, is i32");
}

TEST_CASE("verifier rejects update type mismatch and bad targets", "[ir][verifier]") {
  Graph g = sampleGraph();
  g.updates[0].newValue = g.findValue("probs");
  CHECK(verifyError(g) == "value '%conv1.weight': update from '%probs' has type f32[2,4], target is f32[3,1,3,3]");
  g = sampleGraph();
  g.updates[0].target = g.findValue("labels");
  CHECK(verifyError(g) == "value '%labels': update target must be a param or const");
}

TEST_CASE("verifier rejects bad graph input kinds and missing weights", "[ir][verifier]") {
  Graph g = sampleGraph();
  g.inputs.push_back(g.findValue("conv1.weight"));
  CHECK(verifyError(g) == "value '%conv1.weight': is a graph input but not an input value");
  g = sampleGraph();
  g.inputs.pop_back();
  CHECK(verifyError(g) == "value '%lr': input value is not in the graph's input list");
  g = sampleGraph();
  g.initializers.erase(g.findValue("fc.weight"));
  CHECK(verifyError(g) == "value '%fc.weight': param has no initial data");
  CHECK(verifyError(g, {.requireWeights = false}) == "<ok>");
  g.initializers.erase(g.findValue("fc.weight.velocity"));
  CHECK(verifyError(g, {.requireWeights = false}) == "value '%fc.weight.velocity': const has no data");
}

TEST_CASE("verifier rejects inconsistent ids, producers and outputs", "[ir][verifier]") {
  Graph g = chain();
  g.values[1].id = 7;
  CHECK(verifyError(g) == "value '%a.out': id 7 does not match its index 1");
  g = chain();
  g.nodes[1].outputs = {1};
  g.values[2].producer = kNoNode;
  CHECK(verifyError(g) == "node 'b' (relu): output '%a.out' is produced twice");
  g = chain();
  g.nodes[0].inputs = {42};
  CHECK(verifyError(g) == "node 'a' (relu): input 0 refers to unknown value #42");
  g = chain();
  g.outputs.push_back(99);
  CHECK(verifyError(g) == "graph output #99 does not exist");
}

TEST_CASE("verifier rejects a negative conv2d pad", "[ir][verifier][hostile]") {
  // Issue 36: a negative pad passed the graph check (its output shape shrank instead).
  Graph g = sampleGraph();
  Node& conv = g.nodes[static_cast<size_t>(g.findNode("conv1.conv"))];
  conv.attrs["pad"] = std::vector<int64_t>{-1, 0};
  CHECK(verifyError(g) == "node 'conv1.conv' (conv2d): pad must not be negative");
  conv.attrs["pad"] = std::vector<int64_t>{1, -1};
  CHECK(verifyError(g) == "node 'conv1.conv' (conv2d): pad must not be negative");
}
