// Transformer models of the zoo: gpt2 (decoder-only, pre-LayerNorm, causal)
// and bert (encoder, post-LayerNorm, bidirectional, classification head).
// Hidden states stay 2-D [B*T, D] so linears are plain matmul + bias_add;
// attention reshapes to [B, H, T, Dh] and uses batch_matmul.
#include "frontend/TransformerBlocks.h"

namespace dfc::frontend::zoo {
namespace {

using ir::OpKind;
using ir::ValueId;

// Token + position embeddings -> [B*T, D]. Position ids are a Const [B, T]; a
// decode step looks its position up in a table of cacheLen rows.
ValueId embeddings(GraphBuilder& b, ValueId ids, const Dims& d, ValueId& tokenTable) {
  tokenTable = initParam(b, "wte", {d.vocab, d.hidden});
  ValueId posTable = initParam(b, "wpe", {d.maxPositions(), d.hidden});
  if (d.decode()) {  // [B, T, D] + [T, D]
    ValueId tokens = op1(b, OpKind::Embedding, {tokenTable, ids});
    ValueId x = op1(b, OpKind::Binary, {tokens, op1(b, OpKind::Embedding, {posTable, d.positions})}, {{"fn", std::string("add")}});
    return b.reshape(x, {d.batch * d.seq, d.hidden});
  }
  ir::Tensor pos(ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  for (int64_t i = 0; i < pos.numElements(); ++i) pos.data<int64_t>()[i] = i % d.seq;
  ValueId posIds = b.constant("position_ids", std::move(pos));
  ValueId x = b.add(op1(b, OpKind::Embedding, {tokenTable, ids}), op1(b, OpKind::Embedding, {posTable, posIds}));
  return b.reshape(x, {d.batch * d.seq, d.hidden});
}

}  // namespace

Expected<Model> buildGpt2(const std::string& name, const ZooOptions& options) {
  std::map<std::string, int64_t> defaults = {
      {"num_layers", 12}, {"hidden_size", 768}, {"num_heads", 12}, {"seq_len", 1024}, {"vocab_size", 50257}};
  if (name == "gpt2-mini")
    defaults = {{"num_layers", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"seq_len", 32}, {"vocab_size", 256}};
  auto dims = transformerDims(name, options, defaults);
  if (!dims) return dims.error();
  Dims& d = *dims;

  Model model = languageModel(name, d);
  GraphBuilder b(model.graph, options.seed);
  tokenInputs(b, model, d);
  ValueId wte = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embeddings");
    x = embeddings(b, model.image, d, wte);
  }
  DecoderBlock block{"h.", "attn", "mlp"};
  block.attention = [&](GraphBuilder& g, ValueId in) {
    return fusedQkvAttention(g, layerNorm(g, in, d.hidden, "ln_1"), d, true);
  };
  block.mlp = [&](GraphBuilder& g, ValueId in) { return geluMlp(g, layerNorm(g, in, d.hidden, "ln_2"), d); };
  x = decoderLayers(b, x, d, block);
  // Tied LM head: logits = h @ wte^T, as in GPT-2 (124M parameters for the defaults).
  LmHead head{"ln_f", [&](GraphBuilder& g, ValueId in) { return layerNorm(g, in, d.hidden, "ln_f"); }, "lm_head", wte};
  DFC_TRY(finishLanguageModel(b, model, x, d, head));
  return model;
}

Expected<Model> buildBert(const std::string& name, const ZooOptions& options) {
  auto dims = transformerDims(name, options,
                              {{"num_layers", 12},
                               {"hidden_size", 768},
                               {"num_heads", 12},
                               {"seq_len", 512},
                               {"vocab_size", 30522},
                               {"num_classes", 2}});
  if (!dims) return dims.error();
  const Dims& d = *dims;
  const int64_t classes = options.params.count("num_classes") ? options.params.at("num_classes") : 2;

  Model model;
  model.graph.name = name;
  model.numClasses = classes;
  GraphBuilder b(model.graph, options.seed);
  model.image = b.input("input_ids", ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  ValueId wte = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embeddings");
    x = layerNorm(b, embeddings(b, model.image, d, wte), d.hidden, "LayerNorm");
  }
  for (int64_t i = 0; i < d.layers; ++i) {
    auto block = b.scope("layer." + std::to_string(i));
    {
      auto s = b.scope("attention");  // post-LN: x = LN(x + attn(x))
      x = layerNorm(b, b.add(x, fusedQkvAttention(b, x, d, false)), d.hidden, "LayerNorm");
    }
    auto s = b.scope("mlp");
    x = layerNorm(b, b.add(x, geluMlp(b, x, d)), d.hidden, "LayerNorm");
  }
  {
    // Classification on the first token ([CLS]): pooler (dense + tanh in BERT; GELU here) then the classifier.
    auto s = b.scope("classifier");
    ValueId cls = op1(b, OpKind::Slice, {b.reshape(x, {d.batch, d.seq, d.hidden})},
                      {{"axis", int64_t{1}}, {"start", int64_t{0}}, {"end", int64_t{1}}});
    cls = b.reshape(cls, {d.batch, d.hidden});
    ValueId pooled = op1(b, OpKind::Gelu, {linear(b, cls, d.hidden, d.hidden, "pooler")});
    model.logits = linear(b, pooled, d.hidden, classes, "out");
  }
  if (!b.status()) return b.status().error().withContext("model '" + name + "'");
  model.graph.outputs = {model.logits};
  return model;
}

}  // namespace dfc::frontend::zoo
