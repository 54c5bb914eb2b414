// Gradient accumulation: K micro-batches of b samples, their gradients summed
// by the accumulate role and averaged, make the same SGD steps as one batch
// of K * b samples (the loss is a mean over the batch).
#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "../runtime/RuntimeTestUtil.h"
#include "SectionsByRole.h"
#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "runtime/Executor.h"

using namespace dfc;
using namespace dfc::runtime::test;

namespace {

struct Trainer {
  autograd::TrainingGraph t;
  runtime::Executor ex;
};

Trainer mlpTrainer(int64_t batch, int steps) {
  frontend::ZooOptions zo;
  zo.batchSize = batch;
  auto m = frontend::buildZooModel("mlp", zo);
  REQUIRE(m.ok());
  autograd::TrainingConfig config;
  config.optimizer = autograd::Optimizer::Sgd;
  config.accumulationSteps = steps;
  auto t = autograd::buildTrainingGraph(m->graph, m->image, m->logits, config);
  REQUIRE(t.ok());
  auto ex = runtime::Executor::create(t->graph, test::sectionsByRole(t->graph));
  REQUIRE(ex.ok());
  return {std::move(*t), std::move(*ex)};
}

// Rows [from, from + n) of a [N, ...] tensor.
ir::Tensor rows(const ir::Tensor& t, int64_t from, int64_t n) {
  ir::Shape shape = t.shape();
  shape[0] = n;
  ir::Tensor out(ir::TensorType{t.dtype(), shape});
  const size_t bytes = t.byteSize() / static_cast<size_t>(t.shape()[0]);
  std::memcpy(out.bytes(), t.bytes() + static_cast<size_t>(from) * bytes, static_cast<size_t>(n) * bytes);
  return out;
}

}  // namespace

TEST_CASE("4 accumulated micro-batches of 8 make the same SGD steps as batches of 32", "[autograd]") {
  Trainer big = mlpTrainer(32, 1), small = mlpTrainer(8, 4);
  const ir::Graph& g = small.t.graph;
  int accumulateNodes = 0;
  for (const ir::Node& n : g.nodes) accumulateNodes += n.role == ir::NodeRole::Accumulate;
  CHECK(accumulateNodes == static_cast<int>(g.params().size()));
  std::mt19937 rng(21);
  for (int step = 0; step < 3; ++step) {
    ir::Tensor images = randomTensor(big.t.graph.value(big.t.image).type.shape, rng);
    ir::Tensor labels = labelTensor(32, 10, rng);
    for (auto* tr : {&big, &small}) REQUIRE(tr->ex.setInput(tr->t.lr, ir::Tensor::scalarF32(0.1f)).ok());
    REQUIRE(big.ex.setInput(big.t.image, images).ok());
    REQUIRE(big.ex.setInput(big.t.labels, labels).ok());
    REQUIRE(big.ex.step(false).ok());
    const float bigLoss = big.ex.tensor(big.t.loss).data<float>()[0];
    double microLosses = 0;
    for (int64_t k = 0; k < 4; ++k) {
      REQUIRE(small.ex.setInput(small.t.image, rows(images, 8 * k, 8)).ok());
      REQUIRE(small.ex.setInput(small.t.labels, rows(labels, 8 * k, 8)).ok());
      REQUIRE(small.ex.step(false).ok());
      microLosses += small.ex.tensor(small.t.loss).data<float>()[0] / 4.0;
      if (k < 3) {  // no optimizer step before the 4th micro-batch: still the weights big has just stepped from
        ir::ValueId w = g.params().front();
        CHECK(maxRelDiff(small.ex.tensor(w), big.ex.tensor(w)) > 0);
      }
    }
    // Same weights through the round, so the micro-batch losses average to the big batch's.
    CHECK(microLosses == Approx(bigLoss).epsilon(1e-5));
    for (ir::ValueId p : g.params()) {
      INFO(g.value(p).name << " after step " << step);
      CHECK(maxRelDiff(small.ex.tensor(p), big.ex.tensor(p)) < 1e-5);
    }
  }
}
