// The hypersection canonical form (partition/Hypersections.h): pairs of
// subgraphs that must get different forms (they would compile to different
// bitfiles) and pairs that must get the same one (repeats that reuse a bitfile).
// Each pair differs in exactly one thing.
#include <catch2/catch.hpp>

#include <functional>

#include "frontend/GraphBuilder.h"
#include "partition/Hypersections.h"

using namespace dfc;
using ir::OpKind;

namespace {

ir::TensorType f32(ir::Shape shape) { return {ir::DType::F32, std::move(shape)}; }

// Builds a graph with `body`, which returns the nodes of the subgraph to hash
// (by their output values, in order); returns that subgraph's canonical form.
std::string formOf(const std::function<std::vector<ir::ValueId>(frontend::GraphBuilder&)>& body) {
  ir::Graph g;
  frontend::GraphBuilder b(g);
  std::vector<ir::ValueId> outs = body(b);
  REQUIRE(b.status());
  std::vector<ir::NodeId> nodes;
  for (ir::ValueId v : outs) nodes.push_back(g.value(v).producer);
  return partition::canonicalForm(g, nodes, g.computeUsers());
}

}  // namespace

TEST_CASE("canonical form: attribute values are part of it", "[partition][hypersection]") {
  auto scaled = [](double alpha) {
    return formOf([alpha](frontend::GraphBuilder& b) {
      return std::vector<ir::ValueId>{b.scale(b.input("x", f32({4, 4})), alpha)};
    });
  };
  CHECK(scaled(2.0) != scaled(3.0));
  CHECK(scaled(2.0) == scaled(2.0));
  auto transposed = [](std::vector<int64_t> perm) {  // square: the output type is the same either way
    return formOf([perm](frontend::GraphBuilder& b) {
      return b.op(OpKind::Transpose, {b.input("x", f32({4, 4, 4}))}, {{"perm", perm}});
    });
  };
  CHECK(transposed({1, 0, 2}) != transposed({0, 2, 1}));
}

TEST_CASE("canonical form: the types of external inputs are part of it", "[partition][hypersection]") {
  // Same op, same output type; only what comes in differs.
  auto cast = [](ir::DType from) {
    return formOf([from](frontend::GraphBuilder& b) {
      return b.op(OpKind::Cast, {b.input("x", {from, {8}})}, {{"to", std::string("f32")}});
    });
  };
  CHECK(cast(ir::DType::I64) != cast(ir::DType::I32));
  auto reshaped = [](ir::Shape from) {
    return formOf([from](frontend::GraphBuilder& b) { return std::vector<ir::ValueId>{b.reshape(b.input("x", f32(from)), {32})}; });
  };
  CHECK(reshaped({4, 8}) != reshaped({8, 4}));
}

TEST_CASE("canonical form: a weight and an activation of the same type differ", "[partition][hypersection]") {
  auto matmul = [](bool weight) {
    return formOf([weight](frontend::GraphBuilder& b) {
      ir::ValueId x = b.input("x", f32({4, 8}));
      ir::ValueId w = weight ? b.paramUniform("w", {8, 8}, 0.1) : b.input("w", f32({8, 8}));
      return std::vector<ir::ValueId>{b.matmul(x, w)};
    });
  };
  CHECK(matmul(true) != matmul(false));
}

TEST_CASE("canonical form: whether a result leaves the subgraph is part of it", "[partition][hypersection]") {
  // relu -> scale; the relu's result read outside the subgraph, or not.
  auto chain = [](bool readOutside, bool graphOutput) {
    ir::Graph g;
    frontend::GraphBuilder b(g);
    ir::ValueId x = b.input("x", f32({4, 4}));
    ir::ValueId r = b.relu(x);
    ir::ValueId s = b.scale(r, 2.0);
    g.outputs = {s};
    if (readOutside) g.outputs.push_back(b.add(r, x));
    if (graphOutput) g.outputs.push_back(r);
    REQUIRE(b.status());
    return partition::canonicalForm(g, {g.value(r).producer, g.value(s).producer}, g.computeUsers());
  };
  CHECK(chain(false, false) != chain(true, false));
  CHECK(chain(false, false) != chain(false, true));
  CHECK(chain(true, false) == chain(false, true));  // both: the relu's result escapes
}

TEST_CASE("canonical form: roles, shared inputs and output positions are part of it", "[partition][hypersection]") {
  auto relu = [](ir::NodeRole role) {
    return formOf([role](frontend::GraphBuilder& b) {
      ir::ValueId x = b.input("x", f32({4, 4}));
      b.setRole(role);
      return std::vector<ir::ValueId>{b.relu(x)};
    });
  };
  CHECK(relu(ir::NodeRole::Forward) != relu(ir::NodeRole::Backward));
  // add(x, x) reads one value twice; add(x, y) two values of the same type.
  auto add = [](bool same) {
    return formOf([same](frontend::GraphBuilder& b) {
      ir::ValueId x = b.input("x", f32({4}));
      ir::ValueId y = same ? x : b.input("y", f32({4}));
      return std::vector<ir::ValueId>{b.add(x, y)};
    });
  };
  CHECK(add(true) != add(false));
  // mul(x, y) then sub(x, y) or sub(y, x): x and y are numbered at their first
  // read, so only their numbers tell the second reads apart.
  auto subtract = [](bool swapped) {
    return formOf([swapped](frontend::GraphBuilder& b) {
      ir::ValueId x = b.input("x", f32({4}));
      ir::ValueId y = b.input("y", f32({4}));
      ir::ValueId m = b.mul(x, y);
      return std::vector<ir::ValueId>{m, swapped ? b.sub(y, x) : b.sub(x, y)};
    });
  };
  CHECK(subtract(false) != subtract(true));
  CHECK(subtract(false) == subtract(false));
  // batch_norm_grad -> (dx, dgamma, dbeta): a consumer of dgamma or of dbeta (same type).
  auto reads = [](size_t output) {
    return formOf([output](frontend::GraphBuilder& b) {
      ir::ValueId dy = b.input("dy", f32({2, 3, 4, 4}));
      ir::ValueId x = b.input("x", f32({2, 3, 4, 4}));
      ir::ValueId gamma = b.paramUniform("gamma", {3}, 1.0);
      auto grads = b.op(OpKind::BatchNormGrad, {dy, x, gamma}, {{"epsilon", 1e-5}});
      REQUIRE(grads.size() == 3);
      return std::vector<ir::ValueId>{grads[0], b.scale(grads[output], 0.5)};
    });
  };
  CHECK(reads(1) != reads(2));
}

TEST_CASE("canonical form: names, scopes, weight values and positions in the graph are not", "[partition][hypersection]") {
  auto layer = [](const std::string& scope, uint64_t seed, int before) {
    ir::Graph g;
    frontend::GraphBuilder b(g, seed);
    ir::ValueId x = b.input("x", f32({4, 8}));
    for (int i = 0; i < before; ++i) x = b.scale(x, 1.0);  // unrelated nodes first: other node ids
    auto s = b.scope(scope);
    ir::ValueId start = x;
    ir::ValueId y = b.relu(b.linear(x, 8, 8));
    g.outputs = {b.add(y, start)};
    REQUIRE(b.status());
    std::vector<ir::NodeId> nodes;
    for (const ir::Node& n : g.nodes)
      if (n.scope == scope) nodes.push_back(n.id);
    return partition::canonicalForm(g, nodes, g.computeUsers());
  };
  CHECK(layer("h.0", 1, 0) == layer("h.7/block", 2, 3));
  CHECK(layer("h.0", 1, 0) == layer("h.0", 1, 5));
}
