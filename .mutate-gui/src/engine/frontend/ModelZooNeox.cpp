// GPT-NeoX (decoder-only): rotary position embeddings on q and k (over the
// whole head: the partial rotary of the released models, rotary_pct 0.25, is
// not modelled), and attention and MLP in parallel off the same input:
// x + attn(ln1(x)) + mlp(ln2(x)); biases; an untied output head (embed_out).
// Defaults are GPT-NeoX-20B; "neox-tiny" is a 2-layer model for byte-level text.
#include "frontend/TransformerBlocks.h"

namespace dfc::frontend::zoo {

using ir::ValueId;

Expected<Model> buildNeox(const std::string& name, const ZooOptions& options) {
  std::map<std::string, int64_t> defaults = {
      {"num_layers", 44}, {"hidden_size", 6144}, {"num_heads", 64}, {"seq_len", 2048}, {"vocab_size", 50432}};
  if (name == "neox-tiny")
    defaults = {{"num_layers", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"seq_len", 32}, {"vocab_size", 256}};
  auto dims = transformerDims(name, options, defaults);
  if (!dims) return dims.error();
  Dims& d = *dims;
  DFC_TRY(checkRotary(name, d));

  Model model = languageModel(name, d);
  GraphBuilder b(model.graph, options.seed);
  tokenInputs(b, model, d);
  ValueId table = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embed_in");
    x = tokenEmbedding(b, model.image, d, table, "weight");
  }
  const Rotary rotary = rotaryTables(b, d);
  DecoderBlock block{"layers.", "attention", "mlp"};
  block.parallel = true;
  block.attention = [&](GraphBuilder& g, ValueId in) {
    return fusedQkvAttention(g, layerNorm(g, in, d.hidden, "input_layernorm"), d, true, ir::kNoValue, &rotary);
  };
  block.mlp = [&](GraphBuilder& g, ValueId in) {
    return geluMlp(g, layerNorm(g, in, d.hidden, "post_attention_layernorm"), d);
  };
  x = decoderLayers(b, x, d, block);
  LmHead head{"final_layer_norm",
              [&](GraphBuilder& g, ValueId in) { return layerNorm(g, in, d.hidden, "final_layer_norm"); }, "embed_out"};
  DFC_TRY(finishLanguageModel(b, model, x, d, head));
  return model;
}

}  // namespace dfc::frontend::zoo
