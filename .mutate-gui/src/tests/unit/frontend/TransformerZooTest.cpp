// The transformer models of the zoo: shapes, scopes, parameter counts, options.
#include <catch2/catch.hpp>

#include "ir/TensorBudget.h"

#include <set>

#include "frontend/ModelZoo.h"
#include "ir/Verifier.h"
#include "support/SizeBudget.h"
#include "unit/WeightData.h"

using namespace dfc;
using frontend::ZooOptions;

namespace {

ZooOptions opts(int64_t batch, std::map<std::string, int64_t> params = {}) {
  ZooOptions o;
  o.batchSize = batch;
  o.params = std::move(params);
  return o;
}

int64_t parameterCount(const ir::Graph& g) {
  int64_t count = 0;
  for (auto p : g.params()) count += g.value(p).type.numElements();
  return count;
}

// The op structure of the nodes under scope `prefix`: op, scope suffix, attributes, output types.
std::vector<std::string> structure(const ir::Graph& g, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes) {
    if (n.scope != prefix && n.scope.rfind(prefix + "/", 0) != 0) continue;
    std::string s = std::string(ir::opName(n.op)) + " " + n.scope.substr(prefix.size());
    for (const auto& [k, v] : n.attrs) s += " " + k + (std::holds_alternative<double>(v) ? "=" + std::to_string(std::get<double>(v)) : "");
    for (auto o : n.outputs) s += " " + g.value(o).type.toString();
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("gpt2-mini maps i64 token ids [B,T] to logits [B,T,V] for any batch") {
  for (int64_t batch : {1, 3}) {
    auto m = frontend::buildZooModel("gpt2-mini", opts(batch));
    REQUIRE(m.ok());
    CHECK(m->task == "language_model");
    CHECK(m->numClasses == 256);
    CHECK(m->graph.value(m->image).type == ir::TensorType{ir::DType::I64, {batch, 32}});
    CHECK(m->graph.value(m->logits).type == ir::TensorType{ir::DType::F32, {batch, 32, 256}});
    CHECK(m->graph.inputs == std::vector<ir::ValueId>{m->image});
    auto verified = ir::verifyGraph(m->graph);
    INFO((verified.ok() ? std::string() : verified.error().message()));
    CHECK(verified.ok());
  }
}

TEST_CASE("gpt2 with 12 layers has 12 h.<i> scopes of identical structure") {
  auto m = frontend::buildZooModel("gpt2", opts(2, {{"hidden_size", 32}, {"num_heads", 4}, {"seq_len", 8},
                                                   {"vocab_size", 50}}));
  REQUIRE(m.ok());
  REQUIRE(ir::verifyGraph(m->graph).ok());
  std::set<std::string> scopes;
  for (const auto& n : m->graph.nodes) scopes.insert(n.scope);
  const auto first = structure(m->graph, "h.0");
  CHECK(first.size() > 20);
  for (int i = 0; i < 12; ++i) {
    std::string s = "h." + std::to_string(i);
    CHECK(scopes.count(s));
    CHECK(scopes.count(s + "/attn"));
    CHECK(scopes.count(s + "/mlp"));
    CHECK(structure(m->graph, s) == first);
  }
  CHECK_FALSE(scopes.count("h.12"));
  for (const char* s : {"embeddings", "ln_f", "lm_head"}) CHECK(scopes.count(s));
  // One fused QKV matmul per block: weight [D, 3D].
  CHECK(m->graph.value(m->graph.findValue("h.5/attn/c_attn.weight")).type.shape == ir::Shape{32, 96});
}

TEST_CASE("gpt2 small has the 124M parameters of GPT-2 (tied LM head)") {
  auto m = frontend::buildZooModel("gpt2", opts(1, {{"seq_len", 8}}));
  REQUIRE(m.ok());
  // The position table is sized by seq_len: subtract the 8-row table, add the 1024-row one.
  CHECK(parameterCount(m->graph) - 8 * 768 + 1024 * 768 == 124439808);
  auto mini = frontend::buildZooModel("gpt2-mini", opts(1));
  REQUIRE(mini.ok());
  // wte + wpe + 2 blocks (2 LNs, c_attn, c_proj, c_fc, c_proj) + ln_f
  CHECK(parameterCount(mini->graph) == 256 * 64 + 32 * 64 +
                                           2 * (4 * 64 + 64 * 192 + 192 + 64 * 64 + 64 + 64 * 256 + 256 + 256 * 64 + 64) +
                                           2 * 64);
}

TEST_CASE("bert is an encoder with a classification head on token 0") {
  auto m = frontend::buildZooModel("bert", opts(2, {{"num_layers", 3}, {"hidden_size", 32}, {"num_heads", 2},
                                                   {"seq_len", 8}, {"vocab_size", 40}, {"num_classes", 3}}));
  REQUIRE(m.ok());
  CHECK(ir::verifyGraph(m->graph).ok());
  CHECK(m->task == "classification");
  CHECK(m->numClasses == 3);
  CHECK(m->graph.value(m->logits).type == ir::TensorType{ir::DType::F32, {2, 3}});
  int masks = 0;
  for (const auto& n : m->graph.nodes) masks += n.op == ir::OpKind::CausalMask;
  CHECK(masks == 0);
  CHECK(structure(m->graph, "layer.0") == structure(m->graph, "layer.2"));
}

TEST_CASE("zoo options: unknown keys and bad values name the key") {
  auto bad = frontend::buildZooModel("gpt2-mini", opts(1, {{"num_layer", 2}}));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("num_layer") && Catch::Contains("gpt2-mini"));
  auto zero = frontend::buildZooModel("gpt2-mini", opts(1, {{"num_heads", 0}}));
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message(), Catch::Contains("num_heads"));
  auto indivisible = frontend::buildZooModel("gpt2-mini", opts(1, {{"num_heads", 5}}));
  REQUIRE_FALSE(indivisible.ok());
  CHECK_THAT(indivisible.error().message(), Catch::Contains("hidden_size"));
  auto lenet = frontend::buildZooModel("lenet", opts(1, {{"num_layers", 2}}));
  REQUIRE_FALSE(lenet.ok());
  CHECK_THAT(lenet.error().message(), Catch::Contains("num_layers"));
}

TEST_CASE("a transformer's layer count and layer weights are bounded before the graph is built", "[hostile]") {
  // --num-layers 1000000 built nodes for minutes (issue 9).
  auto many = frontend::buildZooModel("bert", opts(1, {{"num_layers", 1000000}}));
  REQUIRE_FALSE(many.ok());
  CHECK(many.error().message() == "model 'bert': num_layers 1000000 is more than 4096");
  // 187 GiB of weights under a 1 GiB budget: they are init recipes, nothing is allocated (issue 37: the
  // budget guards the run that materializes them, not the compile).
  support::setMemoryBudget(uint64_t{1} << 30);
  auto heavy = frontend::buildZooModel("gpt2-mini", opts(1, {{"num_layers", 4000}, {"hidden_size", 1024}}));
  CHECK(heavy.ok());
  if (heavy) CHECK_FALSE(ir::checkGraphBudget(heavy->graph).ok());  // what reading its PEF to run checks
  support::setMemoryBudget(0);
  CHECK(frontend::buildZooModel("gpt2-mini", opts(1, {{"num_layers", 3}})).ok());
}

TEST_CASE("transformer weights are deterministic in the seed") {
  ZooOptions a = opts(1), c = opts(1);
  c.seed = 7;
  auto x = frontend::buildZooModel("gpt2-mini", a), y = frontend::buildZooModel("gpt2-mini", a),
       z = frontend::buildZooModel("gpt2-mini", c);
  REQUIRE((x.ok() && y.ok() && z.ok()));
  ir::ValueId w = x->graph.findValue("h.1/mlp/c_fc.weight");
  REQUIRE(w != ir::kNoValue);
  auto p = weightData(x->graph, w), q = weightData(y->graph, w),
       r = weightData(z->graph, w);
  CHECK(std::equal(p.begin(), p.end(), q.begin()));
  CHECK_FALSE(std::equal(p.begin(), p.end(), r.begin()));
}

TEST_CASE("resnet18 has the torchvision layout and 11.7M parameters") {
  auto m = frontend::buildZooModel("resnet18", opts(1, {{"image_size", 64}}));
  REQUIRE(m.ok());
  auto verified = ir::verifyGraph(m->graph);
  INFO((verified.ok() ? std::string() : verified.error().message()));
  CHECK(verified.ok());
  CHECK(m->graph.value(m->logits).type == ir::TensorType{ir::DType::F32, {1, 1000}});
  // torchvision resnet18 (conv weights, BN affine, fc): 11,689,512.
  CHECK(parameterCount(m->graph) == 11689512);
  std::set<std::string> scopes;
  for (const auto& n : m->graph.nodes) scopes.insert(n.scope);
  for (int s = 1; s <= 4; ++s)
    for (int blk = 0; blk < 2; ++blk) CHECK(scopes.count("layer" + std::to_string(s) + "." + std::to_string(blk)));
  CHECK(m->graph.findValue("layer2.0/downsample.0.weight") != ir::kNoValue);
  CHECK(m->graph.findValue("layer1.0/downsample.0.weight") == ir::kNoValue);
  auto small = frontend::buildZooModel("resnet18", opts(2, {{"image_size", 32}, {"in_channels", 1}, {"num_classes", 10}}));
  REQUIRE(small.ok());
  CHECK(small->graph.value(small->logits).type == ir::TensorType{ir::DType::F32, {2, 10}});
  auto bad = frontend::buildZooModel("resnet18", opts(1, {{"hidden_size", 3}}));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("hidden_size"));
}

namespace {

int64_t countOps(const ir::Graph& g, ir::OpKind op, const std::string& scope = "") {
  int64_t n = 0;
  for (const auto& node : g.nodes) n += node.op == op && node.scope.rfind(scope, 0) == 0;
  return n;
}

frontend::Model build(const std::string& name, ZooOptions o) {
  auto m = frontend::buildZooModel(name, o);
  INFO((m.ok() ? std::string() : m.error().message()));
  REQUIRE(m.ok());
  auto verified = ir::verifyGraph(m->graph);
  INFO((verified.ok() ? std::string() : verified.error().message()));
  REQUIRE(verified.ok());
  return std::move(*m);
}

}  // namespace

TEST_CASE("the llm-family presets map byte ids [B,T] to logits [B,T,256] with identical layers") {
  for (const auto& [name, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"llama-tiny", "layers."}, {"bloom-tiny", "h."}, {"neox-tiny", "layers."}}) {
    INFO(name);
    frontend::Model m = build(name, opts(3));
    CHECK(m.task == "language_model");
    CHECK(m.graph.value(m.image).type == ir::TensorType{ir::DType::I64, {3, 32}});
    CHECK(m.graph.value(m.logits).type == ir::TensorType{ir::DType::F32, {3, 32, 256}});
    CHECK(structure(m.graph, prefix + "0") == structure(m.graph, prefix + "1"));
    CHECK(countOps(m.graph, ir::OpKind::CausalMask) == 2);
  }
}

TEST_CASE("llama-tiny: grouped-query attention, RMSNorm, rotary, SwiGLU, no biases, untied head") {
  frontend::Model m = build("llama-tiny", opts(2));
  const auto& g = m.graph;
  auto shape = [&](const std::string& v) { return g.value(g.findValue(v)).type.shape; };
  CHECK(shape("layers.1/self_attn/q_proj.weight") == ir::Shape{128, 128});
  CHECK(shape("layers.1/self_attn/k_proj.weight") == ir::Shape{128, 64});  // 2 kv heads of 32
  CHECK(shape("layers.1/mlp/gate_proj.weight") == ir::Shape{128, 256});
  CHECK(shape("lm_head/lm_head.weight") == ir::Shape{128, 256});
  for (auto p : g.params()) CHECK(g.value(p).name.find("bias") == std::string::npos);
  CHECK(countOps(g, ir::OpKind::LayerNorm) == 0);
  CHECK(countOps(g, ir::OpKind::Expand, "layers.0/self_attn") == 2);  // k and v repeated for their query heads
  CHECK(countOps(g, ir::OpKind::Concat, "layers.0/self_attn") == 2);  // q and k rotated
  // embed + 2 x (q, k, v, o, gate, up, down, 2 norms) + norm + head
  CHECK(parameterCount(g) == 256 * 128 + 2 * (128 * 128 * 2 + 128 * 64 * 2 + 3 * 128 * 256 + 2 * 128) + 128 + 128 * 256);
  // Without --num-kv-heads, --num-heads sets both: plain multi-head attention, nothing repeated.
  frontend::Model mha = build("llama-tiny", opts(2, {{"num_heads", 8}}));
  CHECK(countOps(mha.graph, ir::OpKind::Expand) == 0);
}

TEST_CASE("llama at the Llama-2 7B and 70B shapes has their parameter counts, built without their bytes") {
  support::setMemoryBudget(uint64_t{1} << 40);  // the weights are recipes; the budget guards a later run
  frontend::Model seven = build("llama", opts(1, {{"num_layers", 32}, {"hidden_size", 4096}, {"num_heads", 32},
                                                 {"intermediate_size", 11008}, {"seq_len", 4096}}));
  CHECK(parameterCount(seven.graph) == 6738415616);
  frontend::Model seventy = build("llama", opts(1, {{"num_layers", 80}, {"hidden_size", 8192}, {"num_heads", 64},
                                                   {"num_kv_heads", 8}, {"intermediate_size", 28672},
                                                   {"seq_len", 4096}}));
  support::setMemoryBudget(0);
  CHECK(parameterCount(seventy.graph) == 68976648192);
  CHECK(seventy.graph.value(seventy.graph.findValue("layers.79/self_attn/v_proj.weight")).type.shape ==
        ir::Shape{8192, 1024});
}

TEST_CASE("llama refuses key/value heads that do not divide the query heads, naming both flags") {
  auto bad = frontend::buildZooModel("llama-tiny", opts(1, {{"num_kv_heads", 3}}));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("--num-heads 4") && Catch::Contains("--num-kv-heads 3"));
  auto gpt2 = frontend::buildZooModel("gpt2-mini", opts(1, {{"num_kv_heads", 2}}));
  REQUIRE_FALSE(gpt2.ok());
  CHECK_THAT(gpt2.error().message(), Catch::Contains("unknown parameter 'num_kv_heads'"));
  auto odd = frontend::buildZooModel("neox-tiny", opts(1, {{"hidden_size", 60}, {"num_heads", 4}}));
  REQUIRE_FALSE(odd.ok());
  CHECK_THAT(odd.error().message(), Catch::Contains("even head size"));
}

TEST_CASE("bloom-tiny: ALiBi instead of positions, LayerNorm after the embedding, tied head") {
  frontend::Model m = build("bloom-tiny", opts(2));
  const auto& g = m.graph;
  CHECK(g.findValue("word_embeddings/wpe") == ir::kNoValue);
  CHECK(countOps(g, ir::OpKind::Embedding) == 1);
  CHECK(countOps(g, ir::OpKind::LayerNorm, "word_embeddings") == 1);
  CHECK(g.value(g.findValue("alibi")).type.shape == ir::Shape{4, 1, 32});
  CHECK(countOps(g, ir::OpKind::Binary, "h.0/self_attention") == 1);  // the bias added to the scores
  CHECK(countOps(g, ir::OpKind::MatMul, "lm_head") == 1);
  CHECK(parameterCount(g) == 256 * 64 + 2 * 64 + 2 * (4 * 64 + 64 * 192 + 192 + 64 * 64 + 64 + 64 * 256 + 256 + 256 * 64 + 64) +
                                 2 * 64);
}

TEST_CASE("neox-tiny: attention and MLP read the same block input, in parallel") {
  frontend::Model m = build("neox-tiny", opts(2));
  const auto& g = m.graph;
  std::vector<ir::ValueId> normInputs;
  for (const auto& n : g.nodes)
    if (n.op == ir::OpKind::LayerNorm && n.scope.rfind("layers.1/", 0) == 0) normInputs.push_back(n.inputs[0]);
  REQUIRE(normInputs.size() == 2);
  CHECK(normInputs[0] == normInputs[1]);
  CHECK(countOps(g, ir::OpKind::Concat, "layers.1/attention") == 2);  // rotary q and k
  CHECK(countOps(g, ir::OpKind::Add, "layers.1") == 2 + 2);           // two rotary sums, two residual adds
}
