#include <catch2/catch.hpp>

#include <set>

#include "frontend/ModelZoo.h"
#include "unit/WeightData.h"

using namespace dfc;

TEST_CASE("every MNIST zoo model maps an f32 [N,1,28,28] image to [N,10] logits") {
  for (const std::string name : {"logreg", "mlp", "lenet"}) {
    INFO(name);
    auto m = frontend::buildZooModel(name, 3);
    REQUIRE(m.ok());
    CHECK(m->graph.value(m->image).type == ir::TensorType{ir::DType::F32, {3, 1, 28, 28}});
    CHECK(m->graph.value(m->logits).type == ir::TensorType{ir::DType::F32, {3, 10}});
    CHECK(m->graph.inputs == std::vector<ir::ValueId>{m->image});
    CHECK(m->graph.outputs == std::vector<ir::ValueId>{m->logits});
    CHECK(m->numClasses == 10);
    std::set<std::string> names;
    for (const auto& n : m->graph.nodes) names.insert(n.name);
    CHECK(names.size() == m->graph.nodes.size());
  }
}

TEST_CASE("lenet has the classic layers as hyperfunction scopes") {
  auto m = frontend::buildZooModel("lenet", 2);
  REQUIRE(m.ok());
  std::set<std::string> scopes;
  for (const auto& n : m->graph.nodes) scopes.insert(n.scope);
  CHECK(scopes == std::set<std::string>{"conv1", "conv2", "fc1", "fc2", "fc3"});
  // 5 layers x (weight, bias); PyTorch LeNet-5 has 61,706 parameters.
  auto params = m->graph.params();
  CHECK(params.size() == 10);
  int64_t count = 0;
  for (auto p : params) count += m->graph.value(p).type.numElements();
  CHECK(count == 61706);
  CHECK(m->graph.value(m->graph.findValue("conv2/weight")).type.shape == ir::Shape{16, 6, 5, 5});
  CHECK(m->graph.value(m->graph.findValue("fc1/weight")).type.shape == ir::Shape{120, 400});
}

TEST_CASE("zoo weights are deterministic in the seed") {
  auto a = frontend::buildZooModel("mlp", 1, 5), b = frontend::buildZooModel("mlp", 1, 5),
       c = frontend::buildZooModel("mlp", 1, 6);
  REQUIRE((a.ok() && b.ok() && c.ok()));
  ir::ValueId w = a->graph.findValue("fc2/weight");
  auto x = weightData(a->graph, w), y = weightData(b->graph, w),
       z = weightData(c->graph, w);
  CHECK(std::equal(x.begin(), x.end(), y.begin()));
  CHECK_FALSE(std::equal(x.begin(), x.end(), z.begin()));
}

TEST_CASE("zoo rejects unknown names (listing the zoo) and batch sizes below 1") {
  auto m = frontend::buildZooModel("resnet9000", 4);
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.error().message(), Catch::Contains("resnet9000") && Catch::Contains("logreg") &&
                                      Catch::Contains("mlp") && Catch::Contains("lenet"));
  auto z = frontend::buildZooModel("lenet", 0);
  REQUIRE_FALSE(z.ok());
  CHECK_THAT(z.error().message(), Catch::Contains("batch size"));
}
