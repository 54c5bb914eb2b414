// The numerics guard: the default pipeline must not change what a training
// step computes (loss and every updated weight), checked with the reference
// interpreter on the optimized and the unoptimized graph.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <set>

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

TEST_CASE("pattern-fusion's gelu, scale and causal_mask compute what the exported chains did", "[passes][numerics]") {
  auto g = ir::parseGraph(R"(graph g {
  input %q : f32[2,3,4]
  input %k : f32[2,3,4]
  const %a : f32[] = [0.044715]
  const %c : f32[] = [0.7978846]
  const %one : f32[] = [1]
  const %half : f32[] = [0.5]
  const %two : f32[] = [2]
  const %fill : f32[] = [-1e9]
  const %upper : bool[3,3] = [false, true, true, false, false, true, false, false, false]
  %s : f32[2,3,3] = batch_matmul(%q, %k) {trans_a = 0, trans_b = 1} name="scores"
  %sc : f32[2,3,3] = binary(%s, %two) {fn = "div"} name="scaled"
  %m : f32[2,3,3] = where(%upper, %fill, %sc) name="masked"
  %p : f32[2,3,3] = softmax(%m) name="probs"
  %o : f32[2,3,4] = batch_matmul(%p, %q) {trans_a = 0, trans_b = 0} name="context"
  %sq : f32[2,3,4] = mul(%o, %o) name="sq"
  %cube : f32[2,3,4] = mul(%o, %sq) name="cube"
  %ac : f32[2,3,4] = binary(%a, %cube) {fn = "mul"} name="ac"
  %in : f32[2,3,4] = add(%o, %ac) name="in"
  %u : f32[2,3,4] = binary(%c, %in) {fn = "mul"} name="u"
  %t : f32[2,3,4] = unary(%u) {fn = "tanh"} name="t"
  %pl : f32[2,3,4] = binary(%one, %t) {fn = "add"} name="pl"
  %xp : f32[2,3,4] = mul(%o, %pl) name="xp"
  %y : f32[2,3,4] = binary(%half, %xp) {fn = "mul"} name="y"
  output %y
}
)",
                          "exported.dfir");
  REQUIRE(g.ok());
  checkSameResults(*g, passes::kDefaultInferencePipeline);
  ir::Graph fused = *g;
  auto pm = passes::PassManager::create({"pattern-fusion"});
  REQUIRE(pm.ok());
  REQUIRE(pm->run(fused).ok());
  std::multiset<ir::OpKind> ops;
  for (const auto& n : fused.nodes) ops.insert(n.op);
  CHECK(ops.count(ir::OpKind::Gelu) == 1);
  CHECK(ops.count(ir::OpKind::Scale) == 1);
  CHECK(ops.count(ir::OpKind::CausalMask) == 1);
  CHECK(ops.count(ir::OpKind::Unary) == 0);
  CHECK(ops.count(ir::OpKind::Where) == 0);
}
