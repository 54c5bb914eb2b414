#include <catch2/catch.hpp>

#include <cmath>

#include "frontend/GraphBuilder.h"
#include "unit/WeightData.h"

using namespace dfc;
using frontend::GraphBuilder;

TEST_CASE("GraphBuilder names nodes and values after nested scopes") {
  ir::Graph g;
  GraphBuilder b(g);
  ir::ValueId x = b.input("x", {ir::DType::F32, {2, 3}});
  ir::ValueId y = ir::kNoValue;
  {
    auto outer = b.scope("block");
    auto inner = b.scope("act");
    y = b.relu(x);
    CHECK(b.currentScope() == "block/act");
    y = b.relu(y);  // same scope, same op: still unique
  }
  CHECK(b.currentScope().empty());
  ir::ValueId z = b.relu(y);
  REQUIRE(b.status().ok());
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].name == "block/act/relu");
  CHECK(g.nodes[0].scope == "block/act");
  CHECK(g.nodes[1].name != g.nodes[0].name);
  CHECK(g.value(g.nodes[0].outputs[0]).name == "block/act/relu.out");
  CHECK(g.nodes[2].scope.empty());
  CHECK(g.value(z).type == ir::TensorType{ir::DType::F32, {2, 3}});
}

TEST_CASE("GraphBuilder infers output types and keeps the first error") {
  ir::Graph g;
  GraphBuilder b(g);
  ir::ValueId a = b.input("a", {ir::DType::F32, {4, 5}});
  ir::ValueId w = b.input("w", {ir::DType::F32, {3, 5}});
  ir::ValueId y = b.matmul(a, w, false, true);
  REQUIRE(y != ir::kNoValue);
  CHECK(g.value(y).type.shape == ir::Shape{4, 3});

  ir::ValueId bad = b.matmul(a, w);  // inner dims 5 vs 3
  CHECK(bad == ir::kNoValue);
  REQUIRE_FALSE(b.status().ok());
  CHECK_THAT(b.status().error().message(), Catch::Contains("inner dimensions"));
  // Later ops are refused, the first error stays.
  CHECK(b.relu(a) == ir::kNoValue);
  CHECK_THAT(b.status().error().message(), Catch::Contains("inner dimensions"));
}

TEST_CASE("GraphBuilder sets the role of the nodes it adds") {
  ir::Graph g;
  GraphBuilder b(g);
  ir::ValueId x = b.input("x", {ir::DType::F32, {2, 2}});
  b.setRole(ir::NodeRole::Backward);
  b.scale(x, 2.0);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].role == ir::NodeRole::Backward);
  CHECK(g.nodes[0].floatAttr("alpha") == 2.0);
}

TEST_CASE("linear layer uses a [out,in] weight with Kaiming-uniform bounds, deterministic per seed") {
  auto build = [](uint64_t seed) {
    ir::Graph g;
    GraphBuilder b(g, seed);
    ir::ValueId x = b.input("x", {ir::DType::F32, {8, 100}});
    auto s = b.scope("fc1");
    ir::ValueId y = b.linear(x, 100, 20);
    REQUIRE(b.status().ok());
    CHECK(g.value(y).type.shape == ir::Shape{8, 20});
    return g;
  };
  ir::Graph g = build(7);
  ir::ValueId w = g.findValue("fc1/weight"), bias = g.findValue("fc1/bias");
  REQUIRE(w != ir::kNoValue);
  REQUIRE(bias != ir::kNoValue);
  CHECK(g.value(w).kind == ir::ValueKind::Param);
  CHECK(g.value(w).type.shape == ir::Shape{20, 100});
  const auto& matmulNode = g.nodes[0];
  CHECK(matmulNode.op == ir::OpKind::MatMul);
  CHECK(matmulNode.intAttr("trans_b") == 1);
  CHECK(g.nodes[1].op == ir::OpKind::BiasAdd);

  auto wd = weightData(g, w);
  float maxAbs = 0;
  double mean = 0;
  for (float v : wd) {
    maxAbs = std::max(maxAbs, std::fabs(v));
    mean += v;
  }
  mean /= static_cast<double>(wd.size());
  CHECK(maxAbs <= 0.1f);     // 1/sqrt(100)
  CHECK(maxAbs > 0.09f);     // and fills the range
  CHECK(std::fabs(mean) < 0.01);
  for (float v : weightData(g, bias)) CHECK(std::fabs(v) <= 0.1f);

  ir::Graph same = build(7), other = build(8);
  auto a = weightData(same, w);
  CHECK(std::equal(a.begin(), a.end(), wd.begin()));
  auto c = weightData(other, other.findValue("fc1/weight"));
  CHECK_FALSE(std::equal(c.begin(), c.end(), wd.begin()));
}

TEST_CASE("conv layer: weight [O,I,k,k], conv2d with stride/pad then bias_add") {
  ir::Graph g;
  GraphBuilder b(g);
  ir::ValueId x = b.input("x", {ir::DType::F32, {2, 3, 9, 9}});
  auto s = b.scope("conv1");
  ir::ValueId y = b.convLayer(x, 3, 4, 3, 2, 1);
  REQUIRE(b.status().ok());
  CHECK(g.value(y).type.shape == ir::Shape{2, 4, 5, 5});
  CHECK(g.value(g.findValue("conv1/weight")).type.shape == ir::Shape{4, 3, 3, 3});
  CHECK(g.nodes[0].intsAttr("stride") == std::vector<int64_t>{2, 2});
  CHECK(g.nodes[0].intsAttr("pad") == std::vector<int64_t>{1, 1});
  ir::ValueId p = b.maxpool2d(y, {2, 2}, {2, 2});
  CHECK(g.value(p).type.shape == ir::Shape{2, 4, 2, 2});
}
