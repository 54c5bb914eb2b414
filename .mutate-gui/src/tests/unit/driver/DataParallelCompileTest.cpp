// --data-parallel at compile: the options it refuses, the gradient buckets
// and their reduce sections, the collective cost model, and the all_reduce
// kernels keeping replicas identical over an in-process group of ranks.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "../../e2e/TestEnv.h"
#include "arch/CollectiveModel.h"
#include "autograd/Autograd.h"
#include "autograd/GradientReduce.h"
#include "dist/Communicator.h"
#include "driver/compile/Compiler.h"
#include "frontend/ModelZoo.h"
#include "ir/Verifier.h"
#include "pef/Pef.h"
#include "runtime/Executor.h"

using namespace dfc;

namespace {

ir::Graph lenetTraining(int64_t batch) {
  auto m = frontend::buildZooModel("lenet", batch);
  REQUIRE(m.ok());
  auto tg = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
  REQUIRE(tg.ok());
  return std::move(tg->graph);
}

driver::CompileOptions dataParallelLenet(const test::ScratchDir& dir) {
  driver::CompileOptions c;
  c.model = "lenet";
  c.batchSize = 8;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  c.dataParallel = true;
  c.worldSize = 2;
  c.allreduceBucketKb = 64;
  return c;
}

}  // namespace

TEST_CASE("compile options: --data-parallel and -ws are refused alone, below 2 and with --inference, naming the flag", "[dp]") {
  driver::CompileOptions o;
  o.model = "lenet";
  o.worldSize = 2;
  CHECK(o.validate().error().message().find("-ws/--world-size needs --data-parallel") != std::string::npos);
  o.dataParallel = true;
  o.worldSize = 0;
  CHECK(o.validate().error().message().find("--data-parallel needs -ws") != std::string::npos);
  o.worldSize = 1;
  CHECK(o.validate().error().message().find("-ws/--world-size 1") != std::string::npos);
  o.worldSize = 2;
  CHECK(o.validate().ok());
  o.inference = true;
  CHECK(o.validate().error().message().find("--inference") != std::string::npos);
}

TEST_CASE("gradient buckets cover every gradient once, late layers first, and the optimizer reads the averages", "[dp]") {
  ir::Graph g = lenetTraining(4);
  const auto grads = autograd::findGradients(g);
  REQUIRE(grads.size() == g.params().size());  // lenet: one gradient per weight
  auto buckets = autograd::insertGradientReduce(g, 64 * 1024);
  REQUIRE(buckets.ok());
  REQUIRE(buckets->size() >= 2);
  REQUIRE(ir::verifyGraph(g).ok());
  std::vector<ir::ValueId> covered;
  for (const auto& b : *buckets) {
    const ir::Node& n = g.node(b.node);
    CHECK(n.op == ir::OpKind::AllReduce);
    CHECK(n.role == ir::NodeRole::Reduce);
    CHECK(n.inputs == b.gradients);
    CHECK((b.bytes <= 64 * 1024 || b.gradients.size() == 1));
    covered.insert(covered.end(), b.gradients.begin(), b.gradients.end());
  }
  CHECK(covered == grads);  // in production order: the first bucket holds what backward computes first
  const auto users = g.computeUsers();
  for (ir::ValueId v : grads)
    for (ir::NodeId u : users[static_cast<size_t>(v)]) CHECK(g.node(u).role != ir::NodeRole::Optimizer);
}

TEST_CASE("the collective cost model: tree wins small buckets, ring large ones, and the chosen bucket is bandwidth-bound",
          "[dp]") {
  arch::ArchSpec a;
  a.dpLinkGbps = 25;
  a.dpLinkLatencyUs = 5;
  a.pcieGbps = 32;
  CHECK(arch::bestAllreduce(a, 4096, 16).algorithm == "double-tree");
  CHECK(arch::bestAllreduce(a, 256e6, 16).algorithm == "ring");
  // Ring at W=2: 2 messages of latency and the whole buffer over the link.
  CHECK(arch::allreduceEstimates(a, 1e6, 2).back().us > 0);
  const double bucket = arch::chooseBucketBytes(a, 1e9, 2);
  const double ring = 2 * 5 + bucket / 25e3;
  CHECK((bucket / 25e3) / ring == Approx(arch::kBandwidthShare).epsilon(0.01));
  CHECK(arch::chooseBucketBytes(a, 1000, 2) == 4096);  // never below a page, however small the gradients
  a.chips = 4;
  bool hierarchical = false;
  for (const auto& e : arch::allreduceEstimates(a, 64e6, 8)) hierarchical = hierarchical || e.algorithm == "hierarchical";
  CHECK(hierarchical);
}

TEST_CASE("a data-parallel compile has one reduce section per bucket before the optimizer and reports their estimates",
          "[dp]") {
  test::ScratchDir dir("dp-compile");
  auto compiled = driver::compile(dataParallelLenet(dir));
  REQUIRE(compiled.ok());
  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef.ok());
  CHECK(pef->meta.worldSize == 2);
  std::vector<int> reducePositions, optimizerPositions;
  for (size_t i = 0; i < pef->plan.schedule.size(); ++i) {
    const auto& s = pef->plan.sections[static_cast<size_t>(pef->plan.schedule[i])];
    if (s.type == ir::NodeRole::Reduce) {
      reducePositions.push_back(static_cast<int>(i));
      CHECK(s.nodes.size() == 1);
      CHECK(s.estimate.latencyUs > 5.0);  // at least the link's message latency
    }
    if (s.type == ir::NodeRole::Optimizer) optimizerPositions.push_back(static_cast<int>(i));
  }
  REQUIRE(reducePositions.size() >= 2);
  REQUIRE(!optimizerPositions.empty());
  CHECK(reducePositions.back() < optimizerPositions.front());
  CHECK(pef->reportJson.find("\"data_parallel\"") != std::string::npos);
  CHECK(pef->reportJson.find("\"algorithm\":\"ring\"") != std::string::npos);
}

TEST_CASE("all_reduce kernels over an in-process group of 2 keep replicas fed different data identical", "[dp]") {
  test::ScratchDir dir("dp-group");
  auto compiled = driver::compile(dataParallelLenet(dir));
  REQUIRE(compiled.ok());
  auto pef = pef::readPef(compiled->pefPath);
  REQUIRE(pef.ok());
  // Catch2 assertions are not thread-safe: each replica reports a failure as text, checked after the join.
  auto trainReplicas = [&](dist::InProcessGroup* group) {
    std::vector<std::vector<float>> weights(2);
    std::vector<std::string> failures(2);
    auto replica = [&](int rank) {
      const auto r = static_cast<size_t>(rank);
      runtime::ExecutorOptions options;
      options.threads = 1;
      options.communicator = group ? &group->rank(rank) : nullptr;
      auto exec = runtime::Executor::create(pef->graph, pef->plan, options);
      if (!exec) return void(failures[r] = exec.error().message());
      std::mt19937 rng(static_cast<unsigned>(rank + 1));
      for (ir::ValueId in : pef->graph.inputs) {
        ir::Tensor t(pef->graph.value(in).type);
        if (pef->graph.value(in).name == pef->meta.lrInput) t = ir::Tensor::scalarF32(0.05f);  // one lr for all
        else if (t.dtype() == ir::DType::F32)
          for (float& v : t.span<float>()) v = std::uniform_real_distribution<float>(0, 0.01f)(rng);
        if (t.dtype() == ir::DType::I64)
          for (int64_t& v : t.span<int64_t>()) v = static_cast<int64_t>(rng() % 10);
        if (auto st = exec->setInput(in, t); !st) return void(failures[r] = st.error().message());
      }
      for (int step = 0; step < 3; ++step)
        if (auto st = exec->step(false); !st) return void(failures[r] = st.error().message());
      for (ir::ValueId p : pef->graph.params()) {
        auto s = exec->tensor(p).span<float>();
        weights[r].insert(weights[r].end(), s.begin(), s.end());
      }
    };
    std::thread other(replica, 1);
    replica(0);
    other.join();
    CHECK(failures == std::vector<std::string>{"", ""});
    return weights;
  };
  dist::InProcessGroup group(2);
  auto reduced = trainReplicas(&group);
  CHECK(reduced[0] == reduced[1]);
  auto alone = trainReplicas(nullptr);  // each a world of one: different data, different weights
  CHECK(alone[0] != alone[1]);
}
