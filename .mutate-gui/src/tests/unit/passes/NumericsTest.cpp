// The numerics guard: the default pipeline must not change what a training
// step computes (loss and every updated weight), checked with the reference
// interpreter on the optimized and the unoptimized graph.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "autograd/Autograd.h"
#include "frontend/ModelZoo.h"
#include "ir/Parser.h"
#include "passes/PassManager.h"
#include "runtime/Reference.h"

using namespace dfc;

namespace {

std::map<std::string, ir::Tensor> namedFeeds(const ir::Graph& g, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::map<std::string, ir::Tensor> feeds;
  for (ir::ValueId id : g.inputs) {
    const ir::Value& v = g.value(id);
    ir::Tensor t(v.type);
    if (v.type.dtype == ir::DType::I64) {
      for (int64_t& x : t.span<int64_t>()) x = static_cast<int64_t>(rng() % 10);
    } else if (v.type.rank() == 0) {
      t.data<float>()[0] = 0.05f;  // learning rate
    } else {
      for (float& x : t.span<float>()) x = u(rng);
    }
    feeds[v.name] = std::move(t);
  }
  return feeds;
}

// Every graph output and every updated state, by name.
std::map<std::string, ir::Tensor> evaluate(const ir::Graph& g, const std::map<std::string, ir::Tensor>& named) {
  std::map<ir::ValueId, ir::Tensor> feeds;
  for (const auto& [name, t] : named) feeds[g.findValue(name)] = t;
  auto env = runtime::referenceEvaluate(g, feeds);
  if (!env) FAIL(env.error().message());
  std::map<std::string, ir::Tensor> out;
  for (ir::ValueId v : g.outputs) out[g.value(v).name] = env->at(v);
  for (const ir::StateUpdate& u : g.updates) out["new " + g.value(u.target).name] = env->at(u.newValue);
  return out;
}

void checkSameResults(const ir::Graph& original, const std::vector<std::string>& pipeline) {
  ir::Graph optimized = original;
  auto pm = passes::PassManager::create(pipeline);
  REQUIRE(pm.ok());
  auto st = pm->run(optimized);
  INFO((st ? "" : st.error().message()));
  REQUIRE(st.ok());
  auto feeds = namedFeeds(original, 7);
  auto want = evaluate(original, feeds);
  auto got = evaluate(optimized, feeds);
  REQUIRE(want.size() == got.size());
  for (const auto& [name, t] : want) {
    INFO(name);
    REQUIRE(got.count(name));
    const ir::Tensor& o = got.at(name);
    REQUIRE(o.type() == t.type());
    if (t.dtype() != ir::DType::F32) continue;
    for (int64_t i = 0; i < t.numElements(); ++i)
      REQUIRE(std::abs(o.data<float>()[i] - t.data<float>()[i]) <= 1e-5f * (1.f + std::abs(t.data<float>()[i])));
  }
}

}  // namespace

TEST_CASE("the default pipeline keeps a training step's loss and updates", "[passes][numerics]") {
  for (const char* model : {"mlp", "lenet"}) {
    DYNAMIC_SECTION(model) {
      auto m = frontend::buildZooModel(model, 4, 3);
      REQUIRE(m.ok());
      auto training = autograd::buildTrainingGraph(m->graph, m->image, m->logits, {});
      REQUIRE(training.ok());
      checkSameResults(training->graph, passes::kDefaultTrainingPipeline);
      checkSameResults(m->graph, passes::kDefaultInferencePipeline);
    }
  }
}

TEST_CASE("decomposed and folded graphs compute what the composites did", "[passes][numerics]") {
  auto g = ir::parseGraph(R"(graph g {
  input %x : f32[3,4]
  param %w : f32[5,4] = [0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, 1, -1.1, 1.2, 1.3, 1.4, 1.5, -1.6, 0.2, 0.1, 0, -0.3]
  param %b : f32[5] = [1, 2, 3, 4, 5]
  const %ones : f32[3,5] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
  const %c : f32[5] = [0.5, 0.5, 0.5, 0.5, 0.5]
  %c2 : f32[5] = scale(%c) {alpha = 4.0} name="fold"
  %wt : f32[4,5] = transpose(%w) {perm = [1, 0]} name="tw"
  %wtt : f32[5,4] = transpose(%wt) {perm = [1, 0]} name="tw2"
  %y : f32[3,5] = linear(%x, %wtt, %c2) name="fc"
  %y1 : f32[3,5] = mul(%y, %ones) name="times_one"
  %z : f32[3,5] = matmul(%x, %wt) {trans_a = 0, trans_b = 0} name="mm"
  %s : f32[3,5] = add(%y1, %z) name="sum"
  %t : f32[3,5] = bias_add(%s, %b) name="out"
  output %t
}
)", "composites.dfir");
  REQUIRE(g.ok());
  checkSameResults(*g, passes::kDefaultInferencePipeline);
}
