#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "GradCheck.h"
#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "runtime/Reference.h"
#include "unit/WeightData.h"

using namespace dfc;
using ir::ValueId;

namespace {

autograd::TrainingGraph training(const std::string& model, int64_t batch, autograd::Optimizer opt) {
  auto m = frontend::buildZooModel(model, batch);
  REQUIRE(m.ok());
  autograd::TrainingConfig config;
  config.optimizer = opt;
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, config);
  INFO((tg.ok() ? std::string() : tg.error().message()));
  REQUIRE(tg.ok());
  return std::move(*tg);
}

std::map<ValueId, ir::Tensor> batchFeeds(const autograd::TrainingGraph& tg, int64_t batch, float lr) {
  ir::Tensor labels(ir::TensorType{ir::DType::I64, {batch}});
  for (int64_t i = 0; i < batch; ++i) labels.data<int64_t>()[i] = (i * 3) % 10;
  return {{tg.image, test::randomTensor({batch, 1, 28, 28}, 123)}, {tg.labels, labels},
          {tg.lr, ir::Tensor::scalarF32(lr)}};
}

// Runs one step and writes the updates back into the graph's initializers, as the runtime does.
float step(autograd::TrainingGraph& tg, const std::map<ValueId, ir::Tensor>& feeds) {
  auto out = runtime::referenceEvaluate(tg.graph, feeds);
  INFO((out.ok() ? std::string() : out.error().message()));
  REQUIRE(out.ok());
  for (const auto& u : tg.graph.updates) tg.graph.initializers[u.target] = out->at(u.newValue).clone();
  return out->at(tg.loss).data<float>()[0];
}

}  // namespace

TEST_CASE("lenet training graph: inputs, outputs, one momentum update per param with velocity state") {
  auto tg = training("lenet", 4, autograd::Optimizer::Momentum);
  const ir::Graph& g = tg.graph;
  CHECK(g.inputs == std::vector<ValueId>{tg.image, tg.labels, tg.lr});
  CHECK(g.outputs == std::vector<ValueId>{tg.loss, tg.logits});
  CHECK(g.value(tg.labels).name == "labels");
  CHECK(g.value(tg.labels).type == ir::TensorType{ir::DType::I64, {4}});
  CHECK(g.value(tg.lr).type == ir::TensorType{ir::DType::F32, {}});
  CHECK(g.value(tg.loss).type == ir::TensorType{ir::DType::F32, {}});

  auto params = g.params();
  REQUIRE(params.size() == 10);
  REQUIRE(g.updates.size() == 20);  // (param <- p') and (velocity <- v') each
  std::set<ValueId> updated;
  for (const auto& u : g.updates) updated.insert(u.target);
  for (ValueId p : params) {
    INFO(g.value(p).name);
    CHECK(updated.count(p) == 1);
    ValueId v = g.findValue(g.value(p).name + ".velocity");
    REQUIRE(v != ir::kNoValue);
    CHECK(g.value(v).kind == ir::ValueKind::Const);
    CHECK(g.value(v).type == g.value(p).type);
    CHECK(updated.count(v) == 1);
    auto vz = weightData(g, v);
    CHECK(std::all_of(vz.begin(), vz.end(), [](float x) { return x == 0.0f; }));
  }

  std::map<ir::NodeRole, int> roles;
  std::map<ir::OpKind, int> ops;
  std::set<std::string> backwardScopes;
  for (const auto& n : g.nodes) {
    ++roles[n.role];
    ++ops[n.op];
    if (n.role == ir::NodeRole::Backward) backwardScopes.insert(n.scope);
    if (n.role == ir::NodeRole::Optimizer) CHECK(n.op == ir::OpKind::MomentumUpdate);
  }
  CHECK(roles[ir::NodeRole::Optimizer] == 10);
  CHECK(roles[ir::NodeRole::Backward] > 10);
  CHECK(ops[ir::OpKind::SoftmaxCrossEntropyGrad] == 1);
  CHECK(ops[ir::OpKind::Conv2dGradWeight] == 2);
  CHECK(ops[ir::OpKind::Conv2dGradInput] == 1);  // never a gradient for the image
  CHECK(backwardScopes.count("conv1") == 1);
  CHECK(backwardScopes.count("fc3") == 1);
  const ir::Node& lossNode = g.node(g.value(tg.loss).producer);
  CHECK(lossNode.scope == "loss");
  CHECK(lossNode.op == ir::OpKind::SoftmaxCrossEntropy);
}

TEST_CASE("building a training graph leaves the forward model's weights untouched") {
  auto m = frontend::buildZooModel("logreg", 2);
  REQUIRE(m.ok());
  ValueId w = m->graph.findValue("fc/weight");
  float before = weightData(m->graph, w)[0];
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {autograd::Optimizer::Sgd});
  REQUIRE(tg.ok());
  auto feeds = batchFeeds(*tg, 2, 0.5f);
  step(*tg, feeds);
  CHECK(weightData(m->graph, w)[0] == before);
  CHECK(weightData(tg->graph, w)[0] != before);
}

TEST_CASE("one SGD step on lenet lowers the loss of a fixed batch") {
  auto tg = training("lenet", 8, autograd::Optimizer::Sgd);
  REQUIRE(tg.graph.updates.size() == 10);
  auto feeds = batchFeeds(tg, 8, 0.05f);
  float first = step(tg, feeds);
  float second = step(tg, feeds);
  CHECK(std::isfinite(first));
  CHECK(first == Approx(std::log(10.0f)).margin(0.3));  // fresh weights: near-uniform guess
  CHECK(second < first);
}

TEST_CASE("momentum steps on mlp lower the loss and fill the velocity") {
  auto tg = training("mlp", 8, autograd::Optimizer::Momentum);
  auto feeds = batchFeeds(tg, 8, 0.05f);
  float first = step(tg, feeds);
  step(tg, feeds);
  float third = step(tg, feeds);
  CHECK(third < first);
  ValueId v = tg.graph.findValue("fc1/weight.velocity");
  REQUIRE(v != ir::kNoValue);
  auto vd = weightData(tg.graph, v);
  CHECK(std::any_of(vd.begin(), vd.end(), [](float x) { return x != 0.0f; }));
}

TEST_CASE("buildTrainingGraph rejects forward graphs it cannot train") {
  auto m = frontend::buildZooModel("logreg", 2);
  REQUIRE(m.ok());
  auto bad = autograd::buildTrainingGraph(m->graph, m->image, m->image, {});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("logits"));
}
