// BLOOM (decoder-only): no position embedding; a LayerNorm right after the
// word embedding; ALiBi (a per-head linear bias on the attention scores by key
// position) instead; pre-LayerNorm blocks with a fused QKV and a GELU MLP; the
// LM head tied to the word embedding. Defaults are bloom-560m; "bloom-tiny" is
// a 2-layer model for byte-level text.
#include "frontend/TransformerBlocks.h"

namespace dfc::frontend::zoo {

using ir::ValueId;

Expected<Model> buildBloom(const std::string& name, const ZooOptions& options) {
  std::map<std::string, int64_t> defaults = {
      {"num_layers", 24}, {"hidden_size", 1024}, {"num_heads", 16}, {"seq_len", 2048}, {"vocab_size", 250880}};
  if (name == "bloom-tiny")
    defaults = {{"num_layers", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"seq_len", 32}, {"vocab_size", 256}};
  auto dims = transformerDims(name, options, defaults);
  if (!dims) return dims.error();
  Dims& d = *dims;

  Model model = languageModel(name, d);
  GraphBuilder b(model.graph, options.seed);
  tokenInputs(b, model, d);
  ValueId table = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("word_embeddings");
    x = layerNorm(b, tokenEmbedding(b, model.image, d, table, "weight"), d.hidden, "word_embeddings_layernorm");
  }
  const ValueId alibi = alibiBias(b, d);
  DecoderBlock block{"h.", "self_attention", "mlp"};
  block.attention = [&](GraphBuilder& g, ValueId in) {
    return fusedQkvAttention(g, layerNorm(g, in, d.hidden, "input_layernorm"), d, true, alibi);
  };
  block.mlp = [&](GraphBuilder& g, ValueId in) {
    return geluMlp(g, layerNorm(g, in, d.hidden, "post_attention_layernorm"), d);
  };
  x = decoderLayers(b, x, d, block);
  LmHead head{"ln_f", [&](GraphBuilder& g, ValueId in) { return layerNorm(g, in, d.hidden, "ln_f"); }, "lm_head", table};
  DFC_TRY(finishLanguageModel(b, model, x, d, head));
  return model;
}

}  // namespace dfc::frontend::zoo
