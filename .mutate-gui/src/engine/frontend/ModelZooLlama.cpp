// Llama (decoder-only): RMSNorm before attention and MLP, rotary position
// embeddings on q and k, grouped-query attention (num_kv_heads key/value heads,
// each shared by num_heads / num_kv_heads query heads), SwiGLU MLP, no biases,
// an untied LM head. Defaults are Llama-2-7B; "llama-tiny" is a 2-layer model
// that trains on byte-level text in seconds.
#include "frontend/TransformerBlocks.h"

namespace dfc::frontend::zoo {
namespace {

using ir::OpKind;
using ir::ValueId;

ValueId selfAttention(GraphBuilder& b, ValueId x, const Dims& d, const Rotary& rotary) {
  const int64_t dh = d.headDim(), kvWidth = d.kvHeads * dh;
  ValueId q = headsFirst(b, splitHeads(b, projection(b, x, d.hidden, d.hidden, "q_proj"), d, d.heads));
  ValueId k = headsFirst(b, splitHeads(b, projection(b, x, d.hidden, kvWidth, "k_proj"), d, d.kvHeads));
  ValueId v = headsFirst(b, splitHeads(b, projection(b, x, d.hidden, kvWidth, "v_proj"), d, d.kvHeads));
  q = applyRotary(b, q, rotary, dh);
  k = applyRotary(b, k, rotary, dh);
  return projection(b, attend(b, q, k, v, d, true), d.hidden, d.hidden, "o_proj");
}

// down(silu(gate(x)) * up(x)), silu(g) = g * sigmoid(g).
ValueId swiGlu(GraphBuilder& b, ValueId x, const Dims& d) {
  ValueId gate = projection(b, x, d.hidden, d.intermediate, "gate_proj");
  ValueId up = projection(b, x, d.hidden, d.intermediate, "up_proj");
  ValueId silu = b.mul(gate, op1(b, OpKind::Unary, {gate}, {{"fn", std::string("sigmoid")}}));
  return projection(b, b.mul(silu, up), d.intermediate, d.hidden, "down_proj");
}

std::map<std::string, int64_t> llamaDefaults(const std::string& name) {
  if (name == "llama-tiny")
    return {{"num_layers", 2},  {"hidden_size", 128}, {"num_heads", 4},        {"num_kv_heads", 2},
            {"seq_len", 32},    {"vocab_size", 256},  {"intermediate_size", 256}};
  return {{"num_layers", 32}, {"hidden_size", 4096}, {"num_heads", 32},          {"num_kv_heads", 32},
          {"seq_len", 4096},  {"vocab_size", 32000}, {"intermediate_size", 11008}};
}

}  // namespace

Expected<Model> buildLlama(const std::string& name, const ZooOptions& options) {
  auto defaults = llamaDefaults(name);
  // num_kv_heads follows --num-heads unless it is given too (multi-head attention).
  if (options.params.count("num_heads") && !options.params.count("num_kv_heads"))
    defaults["num_kv_heads"] = options.params.at("num_heads");
  auto dims = transformerDims(name, options, defaults, 3);
  if (!dims) return dims.error();
  Dims& d = *dims;
  DFC_TRY(checkRotary(name, d));

  Model model = languageModel(name, d);
  GraphBuilder b(model.graph, options.seed);
  tokenInputs(b, model, d);
  ValueId table = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embed_tokens");
    x = tokenEmbedding(b, model.image, d, table, "weight");
  }
  const Rotary rotary = rotaryTables(b, d);
  DecoderBlock block{"layers.", "self_attn", "mlp"};
  block.attention = [&](GraphBuilder& g, ValueId in) {
    return selfAttention(g, rmsNorm(g, in, d.hidden, "input_layernorm"), d, rotary);
  };
  block.mlp = [&](GraphBuilder& g, ValueId in) {
    return swiGlu(g, rmsNorm(g, in, d.hidden, "post_attention_layernorm"), d);
  };
  x = decoderLayers(b, x, d, block);
  LmHead head{"norm", [&](GraphBuilder& g, ValueId in) { return rmsNorm(g, in, d.hidden, "norm"); }, "lm_head"};
  DFC_TRY(finishLanguageModel(b, model, x, d, head));
  return model;
}

}  // namespace dfc::frontend::zoo
