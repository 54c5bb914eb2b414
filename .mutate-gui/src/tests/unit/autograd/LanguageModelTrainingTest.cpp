// Training graphs of language models: logits [B,T,V], labels [B,T].
#include <catch2/catch.hpp>

#include <random>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "ir/Verifier.h"
#include "runtime/Reference.h"

using namespace dfc;

namespace {

ir::Tensor tokens(ir::Shape shape, int64_t vocab, uint32_t seed) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, std::move(shape)});
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, vocab - 1);
  for (int64_t& v : t.span<int64_t>()) v = dist(rng);
  return t;
}

// Runs `steps` training steps with the reference interpreter, applying the
// graph's state updates between steps; returns the loss of each step.
std::vector<float> train(const autograd::TrainingGraph& tg, const ir::Tensor& ids, const ir::Tensor& labels, int steps,
                         float lr) {
  std::map<ir::ValueId, ir::Tensor> feeds{{tg.image, ids}, {tg.labels, labels}, {tg.lr, ir::Tensor::scalarF32(lr)}};
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    auto env = runtime::referenceEvaluate(tg.graph, feeds);
    INFO((env.ok() ? std::string() : env.error().message()));
    REQUIRE(env.ok());
    losses.push_back(env->at(tg.loss).data<float>()[0]);
    for (const auto& u : tg.graph.updates) feeds[u.target] = env->at(u.newValue);
  }
  return losses;
}

frontend::ZooOptions tiny() {
  frontend::ZooOptions o;
  o.batchSize = 2;
  o.params = {{"seq_len", 8}, {"vocab_size", 32}, {"hidden_size", 32}};
  return o;
}

}  // namespace

TEST_CASE("gpt2-mini training graph: labels [B,T], loss over B*T positions in scope loss") {
  auto m = frontend::buildZooModel("gpt2-mini", tiny());
  REQUIRE(m.ok());
  autograd::TrainingConfig config;
  config.optimizer = autograd::Optimizer::Sgd;
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, config);
  INFO((tg.ok() ? std::string() : tg.error().message()));
  REQUIRE(tg.ok());
  CHECK(ir::verifyGraph(tg->graph).ok());
  CHECK(tg->graph.value(tg->labels).type == ir::TensorType{ir::DType::I64, {2, 8}});
  CHECK(tg->graph.node(tg->graph.value(tg->loss).producer).scope == "loss");
  CHECK(tg->graph.updates.size() == m->graph.params().size());

  // Loss at initialization is close to ln(V) (small weights: near-uniform predictions).
  ir::Tensor ids = tokens({2, 8}, 32, 1), labels = tokens({2, 8}, 32, 2);
  auto losses = train(*tg, ids, labels, 5, 0.01f);
  CHECK(losses[0] == Approx(std::log(32.0)).epsilon(0.1));
  for (size_t i = 1; i < losses.size(); ++i) {
    INFO("step " << i << ": " << losses[i - 1] << " -> " << losses[i]);
    CHECK(losses[i] < losses[i - 1]);
  }
}

TEST_CASE("training graph rejects logits of rank other than 2, 3 or 4") {
  ir::Graph g;
  ir::ValueId x = g.addInput("x", {ir::DType::F32, {2, 3}});
  ir::ValueId y = g.addValue("y", {ir::DType::F32, {2, 3, 4, 5, 6}}, ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Expand, "expand", {x}, {y}, {{"shape", std::vector<int64_t>{2, 3, 4, 5, 6}}});
  g.outputs = {y};
  auto tg = autograd::buildTrainingGraph(g, x, y, {});
  REQUIRE_FALSE(tg.ok());
  CHECK_THAT(tg.error().message(), Catch::Contains("[B, T, V] or [N, C, H, W]"));
}


TEST_CASE("Adam: m, v and the step counter are written back, gpt2-mini loss falls") {
  auto m = frontend::buildZooModel("gpt2-mini", tiny());
  REQUIRE(m.ok());
  autograd::TrainingConfig config;
  config.optimizer = autograd::Optimizer::Adam;
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, config);
  INFO((tg.ok() ? std::string() : tg.error().message()));
  REQUIRE(tg.ok());
  CHECK(ir::verifyGraph(tg->graph).ok());
  // param, m, v per parameter plus the shared step counter.
  CHECK(tg->graph.updates.size() == 3 * m->graph.params().size() + 1);
  ir::ValueId step = tg->graph.findValue("adam.step");
  REQUIRE(step != ir::kNoValue);
  ir::Tensor ids = tokens({2, 8}, 32, 1), labels = tokens({2, 8}, 32, 2);
  auto losses = train(*tg, ids, labels, 5, 0.003f);
  for (size_t i = 1; i < losses.size(); ++i) {
    INFO("step " << i << ": " << losses[i - 1] << " -> " << losses[i]);
    CHECK(losses[i] < losses[i - 1]);
  }
}
